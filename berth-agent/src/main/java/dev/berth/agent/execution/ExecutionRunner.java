package dev.berth.agent.execution;

import dev.berth.agent.isolation.LaunchPlan;
import dev.berth.agent.isolation.Signals;
import dev.berth.agent.output.OutputSink;
import dev.berth.agent.shell.ShellSpec;
import dev.berth.core.error.NotFoundException;
import dev.berth.core.execution.Execution;
import dev.berth.core.execution.ExecutionId;
import dev.berth.core.execution.ExecutionKind;
import dev.berth.core.execution.ExecutionRequest;
import dev.berth.core.session.SessionId;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.random.RandomGenerator;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one session's executions: commands beside the shell, each {@code bash -c <command>} with the
 * shell's user, {@code HOME}, working directory and environment, standard input from {@code
 * /dev/null}, standard output and error merged into the execution's own output, inside the
 * session's launch plan (its cgroup and process budget).
 *
 * <h2>Outcomes</h2>
 *
 * <ul>
 *   <li>Exit code 0 is {@code SUCCEEDED}, anything else {@code FAILED} with the code (128+n when
 *       signal n killed bash).
 *   <li>{@link #cancel} sends SIGTERM to the command's process group, then SIGKILL after {@link
 *       #CANCEL_GRACE}: {@code CANCELLED}.
 *   <li>A timeout is a cancel the runner makes itself: {@code CANCELLED} with {@code timedOut}.
 *   <li>{@link #close()} kills what still runs and records it {@code LOST}: the runtime goes away
 *       under it and its effects are unknown, the same outcome the control plane assigns when a
 *       host vanishes. {@code CANCELLED} stays reserved for what a user (or a timeout) asked for.
 * </ul>
 *
 * <h2>Concurrency</h2>
 *
 * <p>One lock guards the table of executions; each execution has a virtual thread that pumps its
 * output and records its end. Executions run concurrently, bounded by the session's process limit.
 */
public final class ExecutionRunner implements AutoCloseable {
  /** How long a cancelled command has to exit after SIGTERM before SIGKILL. */
  public static final Duration CANCEL_GRACE = Duration.ofSeconds(2);

  private static final Duration KILL_WAIT = Duration.ofSeconds(5);
  private static final Logger LOG = LoggerFactory.getLogger(ExecutionRunner.class);

  private final SessionId session;
  private final ShellSpec environment;
  private final LaunchPlan plan;
  private final ExecutionOutputs outputs;
  private final Clock clock;
  private final RandomGenerator ids;
  private final ReentrantLock lock = new ReentrantLock();
  private final Map<ExecutionId, Entry> entries = new LinkedHashMap<>();
  private final ScheduledExecutorService timeouts =
      Executors.newSingleThreadScheduledExecutor(
          Thread.ofPlatform().daemon().name("berth-execution-timeouts").factory());
  private boolean closed;

  /** What the runner knows of one execution; guarded by the runner's lock. */
  // start() sets execution, process and timeout before it puts the entry where others find it.
  @SuppressWarnings("NullAway.Init")
  private static final class Entry {
    Execution execution;
    ExecutionProcess process;
    ScheduledFuture<?> timeout;
    boolean timedOut;
    boolean cancelling;
    boolean losing;
  }

  /**
   * @param environmentSource the session's shell spec: user, HOME, directory and environment
   * @param plan the session's launch plan, shared with the shell
   * @param ids random source for execution ids
   */
  public ExecutionRunner(
      SessionId session,
      ShellSpec environmentSource,
      LaunchPlan plan,
      ExecutionOutputs outputs,
      Clock clock,
      RandomGenerator ids) {
    this.session = Objects.requireNonNull(session, "session");
    this.environment = Objects.requireNonNull(environmentSource, "environmentSource");
    this.plan = Objects.requireNonNull(plan, "plan");
    this.outputs = Objects.requireNonNull(outputs, "outputs");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.ids = Objects.requireNonNull(ids, "ids");
  }

  /**
   * Starts {@code request} and returns it {@code RUNNING}. A command that cannot be started leaves
   * no record.
   *
   * @throws IllegalStateException after {@link #close()}
   * @throws UncheckedIOException when the process cannot be started
   */
  public ExecutionView start(ExecutionRequest request) {
    lock.lock();
    try {
      if (closed) {
        throw new IllegalStateException(
            "the execution runner of session " + session + " is closed");
      }
      ExecutionId id = ExecutionIds.fresh(ids, entries::containsKey);
      Execution queued =
          Execution.queued(
              id,
              session,
              ExecutionKind.COMMAND,
              request.command(),
              0,
              Optional.empty(),
              clock.instant());
      Process process = spawn(id, request.command());
      CountingSink output = openOutput(id, process);
      Entry entry = new Entry();
      entry.execution = queued.start(0, clock.instant());
      entry.process = ExecutionProcess.supervise(id.value(), process, plan.workloadDepth(), output);
      entry.timeout =
          timeouts.schedule(
              () -> Thread.ofVirtual().start(() -> stop(id, true)),
              request.effectiveTimeout().toNanos(),
              TimeUnit.NANOSECONDS);
      // Only now, complete: an entry without its process would be a running execution that
      // nothing can cancel or kill.
      entries.put(id, entry);
      var unused = entry.process.ended().whenComplete((code, failure) -> finish(id, code));
      return view(entry);
    } finally {
      lock.unlock();
    }
  }

  /** The execution {@code id}, or empty when this runner never started it. */
  public Optional<ExecutionView> get(ExecutionId id) {
    lock.lock();
    try {
      return Optional.ofNullable(entries.get(id)).map(ExecutionRunner::view);
    } finally {
      lock.unlock();
    }
  }

  /** Every execution, in submission order. */
  public List<ExecutionView> list() {
    lock.lock();
    try {
      return entries.values().stream().map(ExecutionRunner::view).toList();
    } finally {
      lock.unlock();
    }
  }

  /** How many executions have not finished yet (the node's gauge). */
  public int running() {
    lock.lock();
    try {
      return (int) entries.values().stream().filter(e -> !e.execution.state().isFinished()).count();
    } finally {
      lock.unlock();
    }
  }

  /** Whether any execution is still running (the idle policy keeps such a session). */
  public boolean anyRunning() {
    lock.lock();
    try {
      return entries.values().stream().anyMatch(e -> !e.execution.state().isFinished());
    } finally {
      lock.unlock();
    }
  }

  /**
   * Cancels {@code id} and returns it once it has ended ({@code CANCELLED}), at most a few seconds
   * later. Idempotent: a finished execution is returned as it is.
   *
   * @throws NotFoundException when this runner never started {@code id}
   */
  public ExecutionView cancel(ExecutionId id) {
    return stop(id, false);
  }

  /** Kills every running execution (they end {@code LOST}) and refuses new ones. Idempotent. */
  @Override
  public void close() {
    List<ExecutionProcess> running = new ArrayList<>();
    lock.lock();
    try {
      if (closed) {
        return;
      }
      closed = true;
      for (Entry entry : entries.values()) {
        if (!entry.execution.state().isFinished()) {
          entry.losing = true;
          running.add(entry.process);
        }
      }
    } finally {
      lock.unlock();
    }
    running.forEach(p -> p.signal(Signals.SIGKILL));
    running.forEach(p -> p.awaitEnd(KILL_WAIT));
    timeouts.shutdownNow();
  }

  private ExecutionView stop(ExecutionId id, boolean timedOut) {
    ExecutionProcess process;
    lock.lock();
    try {
      Entry entry = entries.get(id);
      if (entry == null) {
        throw new NotFoundException("execution " + id + " of session " + session);
      }
      if (entry.execution.state().isFinished()) {
        return view(entry);
      }
      entry.cancelling = true;
      entry.timedOut |= timedOut;
      process = entry.process;
    } finally {
      lock.unlock();
    }
    process.signal(Signals.SIGTERM);
    if (!process.awaitEnd(CANCEL_GRACE)) {
      process.signal(Signals.SIGKILL);
      process.awaitEnd(KILL_WAIT);
    }
    return get(id).orElseThrow();
  }

  private void finish(ExecutionId id, @Nullable Integer code) {
    record(id, code);
    try {
      outputs.finished(id);
    } catch (RuntimeException e) {
      LOG.warn("closing the output of execution {} of session {} failed", id, session, e);
    }
  }

  private void record(ExecutionId id, @Nullable Integer code) {
    lock.lock();
    try {
      Entry entry = Objects.requireNonNull(entries.get(id)); // put by start(), never removed
      if (entry.execution.state().isFinished()) {
        return;
      }
      entry.timeout.cancel(false);
      long end = entry.process.output().count();
      // Closing the runner under a cancel loses the execution: what a user asked for is moot.
      ExecutionOutcome outcome =
          entry.losing
              ? ExecutionOutcome.LOST
              : entry.cancelling
                  ? ExecutionOutcome.CANCELLED
                  : code != null && code == 0
                      ? ExecutionOutcome.SUCCEEDED
                      : ExecutionOutcome.FAILED;
      entry.execution =
          outcome.record(
              entry.execution,
              code == null ? OptionalLong.empty() : OptionalLong.of(code),
              end,
              clock.instant());
    } finally {
      lock.unlock();
    }
  }

  private Process spawn(ExecutionId id, String command) {
    try {
      return ProcessLaunch.start(
          plan,
          environment.workingDirectory(),
          List.of("/bin/bash", "-c", command),
          environment.environment(),
          id.value(),
          true);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start execution " + id + " of session " + session, e);
    }
  }

  private CountingSink openOutput(ExecutionId id, Process process) {
    try {
      OutputSink sink = outputs.open(id);
      return new CountingSink(Objects.requireNonNull(sink, "output of " + id));
    } catch (RuntimeException e) {
      process.destroyForcibly();
      throw e;
    }
  }

  private static ExecutionView view(Entry entry) {
    return new ExecutionView(
        entry.execution,
        entry.timedOut,
        entry.process == null ? 0 : entry.process.output().count());
  }
}
