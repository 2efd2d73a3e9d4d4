package dev.berth.agent.execution;

import dev.berth.agent.isolation.ProcessTree;
import dev.berth.agent.isolation.Signals;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The processes of one execution: {@code setsid bash -c <command>}, launched through the session's
 * plan, so the command leads a session and process group of its own, without a terminal.
 *
 * <p>Its end: bash exits, then its output pipe reaches end of file. A command may leave background
 * processes holding the pipe; after {@link #LINGER} they are SIGKILLed with the process group
 * (under bwrap the PID namespace has already taken them). A process that escaped the group too
 * ({@code setsid}, double fork) keeps running under the session's cgroup, but its later output is
 * dropped: the execution ends with the output it had.
 */
final class ExecutionProcess {
  static final Duration LINGER = Duration.ofSeconds(2);
  private static final Duration RESOLVE_TIMEOUT = Duration.ofSeconds(1);
  private static final Logger LOG = LoggerFactory.getLogger(ExecutionProcess.class);

  private final String name;
  private final Process process;
  private final int workloadDepth;
  private final CountingSink output;
  private final CompletableFuture<Integer> ended = new CompletableFuture<>();
  private volatile Optional<Long> workload = Optional.empty();

  private ExecutionProcess(String name, Process process, int workloadDepth, CountingSink output) {
    this.name = name;
    this.process = process;
    this.workloadDepth = workloadDepth;
    this.output = output;
  }

  /** Starts pumping {@code process}'s output into {@code output} and watching for its end. */
  static ExecutionProcess supervise(
      String name, Process process, int workloadDepth, CountingSink output) {
    ExecutionProcess execution = new ExecutionProcess(name, process, workloadDepth, output);
    Thread.ofVirtual().name("berth-execution-" + name).start(execution::run);
    return execution;
  }

  /** Completes with bash's exit code once the execution has ended and its output is counted. */
  CompletableFuture<Integer> ended() {
    return ended;
  }

  CountingSink output() {
    return output;
  }

  /** Sends {@code signal} to the command's process group (SIGKILL also to its process tree). */
  void signal(int signal) {
    List<ProcessHandle> tree = new ArrayList<>(ProcessTree.snapshot(process.pid()));
    workload().ifPresent(pgid -> Signals.toGroup(pgid, signal));
    if (signal == Signals.SIGKILL) {
      tree.forEach(ProcessHandle::destroyForcibly);
      killTagged();
    }
  }

  private Optional<Long> workload() {
    if (workload.isEmpty() && workloadDepth == 0) {
      // The spawned process is the workload, and setsid made its pid the group's id: known even
      // when bash exited before this looked (a short command under load), while the background
      // processes it left still form the group that must be killed.
      workload = Optional.of(process.pid());
    }
    if (workload.isEmpty()) {
      workload = ProcessTree.descend(process.pid(), workloadDepth, RESOLVE_TIMEOUT);
    }
    return workload;
  }

  private void run() {
    workload();
    Thread pump =
        OutputPump.start(
            "berth-execution-output-" + name, process.getInputStream(), output::append);
    try {
      int code = process.waitFor();
      boolean drained = pump.join(LINGER);
      // An execution ends with its command: what it left running in the background ends with it,
      // whether or not it still held the output (found by its tag: its group may be gone, and a
      // group id nobody uses any more may be another process's by now).
      killTagged();
      if (!drained) {
        workload.ifPresent(pgid -> Signals.toGroup(pgid, Signals.SIGKILL));
        if (!pump.join(LINGER)) {
          LOG.warn("execution {} ended; a process it left behind still holds its output", name);
        }
      }
      output.seal();
      ended.complete(code);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      ended.completeExceptionally(e);
    }
  }

  /**
   * Kills the background processes it left when bash exited before its process group could be
   * resolved (they were reparented, so they are in no tree of the spawned process).
   */
  private void killTagged() {
    ProcessLaunch.killTagged(name);
  }

  /** Waits up to {@code timeout} for the end. */
  boolean awaitEnd(Duration timeout) {
    try {
      ended.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
      return true;
    } catch (TimeoutException e) {
      return false;
    } catch (ExecutionException e) {
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return ended.isDone();
    }
  }
}
