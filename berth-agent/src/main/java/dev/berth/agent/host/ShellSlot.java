package dev.berth.agent.host;

import dev.berth.agent.contract.ControlLease;
import dev.berth.agent.output.OutputLog;
import dev.berth.agent.shell.ShellExitedException;
import dev.berth.agent.shell.ShellProcess;
import dev.berth.agent.shell.ShellSpec;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * A shell runtime's shell: input and resizes reach it, its exit is recorded, and the next input or
 * attach after an exit starts a new one. The shell is one execution of the runtime, not the
 * runtime: when it exits the runtime stays RUNNING, the exit is written into the output as one
 * marker line, and its successor starts in the same sandbox, home and {@code /tmp}.
 *
 * <p>The counts ({@link #starts}, {@link #lastExit}) are guarded by the runtime's one monitor, its
 * {@link RuntimeLifecycle}, so that they change with the workload they describe.
 */
final class ShellSlot {

  /** How long a new shell waits for the exit of the one it replaces to be recorded. */
  private static final Duration EXIT_RECORD_TIMEOUT = Duration.ofSeconds(6);

  private final String runtime;
  private final String workloadType;
  private final RuntimeLifecycle lifecycle;
  private final ControlLease lease;
  private final Clock clock;
  // Per shell, completes once its exit was recorded and its marker written: a new shell waits for
  // the one of the shell it replaces, so that the old shell's last output and marker come first.
  private final Map<ShellProcess, CompletableFuture<Void>> exitRecords = new ConcurrentHashMap<>();
  private final ReentrantLock starting = new ReentrantLock();
  // A resize that came while no shell ran: {columns, rows} for the next one.
  private volatile int @Nullable [] pendingSize;
  private int starts;
  private Optional<ShellExit> lastExit = Optional.empty();

  ShellSlot(
      String runtime,
      String workloadType,
      RuntimeLifecycle lifecycle,
      ControlLease lease,
      Clock clock) {
    this.runtime = runtime;
    this.workloadType = workloadType;
    this.lifecycle = lifecycle;
    this.lease = lease;
    this.clock = clock;
  }

  void write(byte[] input) {
    try {
      forInput().shell().write(input);
    } catch (ShellExitedException exitedJustNow) {
      // It died between the check and the write: the input goes to its successor.
      forInput().shell().write(input);
    }
  }

  /** A resize reaches the running shell; with none, the next one starts at the size it had. */
  void resize(int columns, int rows) {
    ShellSpec.checkSize(columns, rows);
    Workload.Live live = admitted();
    try {
      live.shell().resize(columns, rows);
    } catch (ShellExitedException noShell) {
      // No shell to tell now: the next one starts at this size.
      pendingSize = new int[] {columns, rows};
    }
  }

  /**
   * What an attach does first: a runtime whose shell exited gets a new one, so that the terminal
   * opens on a prompt. A runtime that admits nothing (paused, stopped, awaiting) is left alone.
   */
  void ensure() {
    forInput();
  }

  /** How the last shell that ended ended, if one did since the runtime started. */
  Optional<ShellExit> lastExit() {
    synchronized (lifecycle) {
      return lastExit;
    }
  }

  /** How many shells the runtime started. */
  int starts() {
    synchronized (lifecycle) {
      return starts;
    }
  }

  /** Whether the runtime's shell is alive: read without the monitor, as a scrape does. */
  boolean alive() {
    return lifecycle.workload().live().map(live -> live.shell().isAlive()).orElse(false);
  }

  /**
   * Counts the first shell of a workload being installed: called under the runtime's monitor, with
   * the install, so that no view sees the workload without its count.
   */
  void counted() {
    synchronized (lifecycle) {
      starts++;
    }
  }

  /** Records the exit of {@code started}'s shell when it comes (outside the runtime's monitor). */
  void watch(Workload.Live started) {
    watch(started.shell());
  }

  /*
   * Admission is checked first: from the lease's expiry to its renewal the protocol answers 409
   * LEASE_EXPIRED, also once the STOP policy has stopped the shell. Checked second, that case was a
   * 503 SHELL_EXITED, which tells the control plane to start a new runtime when what it has to do
   * is renew the lease (ControlLeaseThroughAgentApiTest).
   */
  /**
   * The workload, when the runtime admits input: running (its shell may have exited), not paused,
   * awaiting, stopped or terminated.
   */
  Workload.Live admitted() {
    lease.checkAdmitting();
    synchronized (lifecycle) {
      Workload workload = lifecycle.workload();
      RuntimeState state = lifecycle.state();
      if (workload instanceof Workload.Agent) {
        throw RuntimeRefusals.notAShell(runtime, workloadType);
      }
      if (state == RuntimeState.AWAITING_RESTORE) {
        throw RuntimeRefusals.restoring(runtime, "runs no shell yet");
      }
      if (state == RuntimeState.PAUSED) {
        throw RuntimeRefusals.suspending(runtime, "input", "a read or write");
      }
      Optional<Workload.Live> live = workload.live();
      if (state != RuntimeState.RUNNING || live.isEmpty()) {
        throw HostRefusal.shellExited(runtime);
      }
      return live.get();
    }
  }

  /**
   * The running shell, or a new one in place of one that exited: the first input after an exit
   * starts a shell in the same runtime (same home, {@code /tmp} and sandbox), says so in the
   * output, and is then written to it.
   */
  private Workload.Live forInput() {
    Workload.Live live = admitted();
    if (live.shell().isAlive()) {
      return live;
    }
    // Starters queue here, never on the runtime's monitor: status, leases and stops do not wait
    // for a shell to start (its shell state is prepared in a directory the workload writes).
    starting.lock();
    try {
      Workload.Live current = admitted();
      if (current.shell().isAlive()) {
        return current;
      }
      awaitExitRecorded(current.shell());
      return replace(current);
    } finally {
      starting.unlock();
    }
  }

  /** Starts the successor of {@code current}'s dead shell, at the size the terminal has. */
  private Workload.Live replace(Workload.Live current) {
    int[] size = pendingSize;
    int columns = size != null ? size[0] : current.shell().columns();
    int rows = size != null ? size[1] : current.shell().rows();
    pendingSize = null;
    byte[] notice =
        ("[berth] a new shell starts (shell " + (starts() + 1) + " of this runtime)\r\n")
            .getBytes(StandardCharsets.UTF_8);
    current.output().append(notice, 0, notice.length);
    Workload.Live next = current.withNewShell();
    boolean installed;
    synchronized (lifecycle) {
      installed = lifecycle.replace(current, next);
      if (installed) {
        starts++;
      }
    }
    if (!installed) {
      // Stopped, terminated or closed meanwhile: the new shell must not outlive its runtime.
      next.shell().terminate(Workload.STOP_GRACE);
      throw HostRefusal.shellExited(runtime);
    }
    exitRecords.remove(current.shell());
    next.shell().resize(columns, rows);
    watch(next.shell());
    return next;
  }

  private void watch(ShellProcess shell) {
    exitRecords.put(shell, shell.onExit().thenAccept(status -> exited(shell, status)));
  }

  /** Until the exit of {@code shell} (which is dead) was recorded and its marker written. */
  private void awaitExitRecorded(ShellProcess shell) {
    CompletableFuture<Void> recorded = exitRecords.get(shell);
    if (recorded == null) {
      return;
    }
    try {
      recorded.get(EXIT_RECORD_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw HostRefusal.shellExited(runtime);
    } catch (ExecutionException | TimeoutException e) {
      // The old shell's output did not drain in time: the new shell starts all the same.
    }
  }

  /**
   * The shell of the current workload ended by itself ({@code exit}, Ctrl-D, killed, out of
   * memory): the runtime stays running, and the exit goes into the output as one marker line after
   * everything the shell wrote. A shell the host ended (stop, terminate, close) is not announced.
   */
  private void exited(ShellProcess shell, int status) {
    ShellExit exit;
    OutputLog output;
    synchronized (lifecycle) {
      Optional<Workload.Live> live = lifecycle.workload().live();
      if (live.isEmpty() || live.get().shell() != shell) {
        return;
      }
      exit = new ShellExit(status, clock.instant(), starts, -1);
      lastExit = Optional.of(exit);
      if (lifecycle.state() != RuntimeState.RUNNING || lifecycle.closing()) {
        return;
      }
      output = live.get().output();
    }
    byte[] marker = exit.marker().getBytes(StandardCharsets.UTF_8);
    try {
      output.append(marker, 0, marker.length);
    } catch (RuntimeException closedMeanwhile) {
      return; // The runtime is being removed: its output ends without the marker.
    }
    synchronized (lifecycle) {
      if (lastExit.equals(Optional.of(exit))) {
        lastExit = Optional.of(new ShellExit(status, exit.at(), exit.shell(), output.nextOffset()));
      }
    }
  }
}
