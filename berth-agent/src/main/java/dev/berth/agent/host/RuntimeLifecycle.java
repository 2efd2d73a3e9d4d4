package dev.berth.agent.host;

import dev.berth.agent.contract.ControlLease;
import dev.berth.agent.isolation.LaunchPlan;
import java.util.Optional;

/**
 * Where a hosted runtime stands and what runs in it, changed together: its {@link RuntimeState}
 * (moved only through {@link RuntimeState#TABLE}), its {@link Workload}, and why it was stopped.
 * Every move has its effect here too: a pause freezes the workload's tree, a stop stops it.
 *
 * <p>This object's monitor is the runtime's one monitor. The parts that read the state and the
 * workload together ({@link ShellSlot}, {@link RuntimeCheckpoint}, the runtime's view) take it, so
 * that they see both at one moment. The workload is also readable without it (it is replaced whole,
 * never changed in place), as a scrape or a transcript read does.
 */
final class RuntimeLifecycle {

  private final String runtime;
  private volatile Workload workload;
  private RuntimeState state;
  private Optional<String> stopReason;
  // Why the lease will stop the runtime when it does: set by the lease before it calls stop.
  private volatile String pendingStopReason = ControlLease.LEASE_EXPIRED;
  // Set once the host closes the runtime: the shell it kills then is not announced as an exit.
  private volatile boolean closing;

  RuntimeLifecycle(
      String runtime, Workload workload, RuntimeState state, Optional<String> stopReason) {
    this.runtime = runtime;
    this.workload = workload;
    this.state = state;
    this.stopReason = stopReason;
  }

  /** What runs now, read without the monitor. */
  Workload workload() {
    return workload;
  }

  synchronized RuntimeState state() {
    return state;
  }

  synchronized Optional<String> stopReason() {
    return stopReason;
  }

  /** Whether the host is closing the runtime (its shell's end is then not an exit). */
  boolean closing() {
    return closing;
  }

  /**
   * Makes {@code started} the runtime's workload, from awaiting to running (a fresh runtime is
   * created awaiting and given its workload before anyone sees it). A runtime that was stopped or
   * terminated meanwhile (a lease expiry during a long restore) keeps its state.
   *
   * @throws HostRefusal 409 CONFLICT when the runtime no longer awaits
   */
  synchronized void install(Workload started) {
    requireAwaiting("start a shell in it");
    state = RuntimeState.TABLE.next(runtime, state, RuntimeState.Event.SHELL_STARTED);
    workload = started;
  }

  synchronized void requireAwaiting(String action) {
    if (state != RuntimeState.AWAITING_RESTORE) {
      throw RuntimeRefusals.notAwaiting(runtime, state, action);
    }
  }

  /**
   * Puts {@code next} in place of {@code current}, whose shell exited, unless the runtime was
   * stopped, terminated or closed meanwhile; whether it did.
   */
  synchronized boolean replace(Workload.Live current, Workload.Live next) {
    boolean installed = state == RuntimeState.RUNNING && !closing && workload == current;
    if (installed) {
      workload = next;
    }
    return installed;
  }

  /**
   * Closes admission and freezes the whole process tree (the cgroup freezer, else SIGSTOP) so that
   * a checkpoint sees a state that does not change under it. Idempotent while paused.
   */
  void pause() {
    synchronized (this) {
      if (state == RuntimeState.PAUSED) {
        return;
      }
      state = RuntimeState.TABLE.next(runtime, state, RuntimeState.Event.PAUSE);
    }
    workload.launchPlan().ifPresent(LaunchPlan::freeze);
  }

  /** Reopens admission and thaws the process tree: the checkpoint was given up. */
  void unpause() {
    synchronized (this) {
      if (state != RuntimeState.PAUSED) {
        return;
      }
      state = RuntimeState.TABLE.next(runtime, state, RuntimeState.Event.CONTINUE);
    }
    workload.launchPlan().ifPresent(LaunchPlan::thaw);
    workload.agent().ifPresent(agent -> agent.prompts().openAdmission());
  }

  /**
   * Stops the workload for {@code reason} (lease expiry, maximum lifetime); never restarts it. A
   * runtime awaiting its archive is stopped too: it then refuses the restore.
   */
  void stop(String reason) {
    synchronized (this) {
      if (!RuntimeState.TABLE.allows(state, RuntimeState.Event.STOP)) {
        return;
      }
      state = RuntimeState.TABLE.next(runtime, state, RuntimeState.Event.STOP);
      stopReason = Optional.of(reason);
    }
    workload.stop();
  }

  /** What the control lease does when it ends: stops for the reason it gave last. */
  void stopForLease() {
    stop(pendingStopReason);
  }

  /** The reason the lease gives for the stop it is about to make. */
  void leaseStopsFor(String reason) {
    pendingStopReason = reason;
  }

  /** Stops the workload for good; the tombstone was written before this is called. */
  void terminate() {
    synchronized (this) {
      if (state != RuntimeState.TERMINATED) {
        state = RuntimeState.TABLE.next(runtime, state, RuntimeState.Event.TERMINATE);
      }
    }
    workload.stop();
  }

  /** Marks the runtime closing and stops what runs; the workload, whose logs the caller closes. */
  Workload close() {
    Workload current;
    synchronized (this) {
      // Under the monitor: a shell starting now sees it and is not installed.
      closing = true;
      current = workload;
    }
    current.stop();
    return current;
  }
}
