package dev.berth.agent.agentcli;

import dev.berth.agent.execution.ExecutionView;
import dev.berth.agent.isolation.LaunchPlan;
import dev.berth.agent.output.OutputSink;
import dev.berth.core.execution.ExecutionId;
import dev.berth.core.session.SessionId;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;

/**
 * An agent session's prompts: each one run of its CLI, one at a time in order, through a bounded
 * queue. No CLI process stays between prompts.
 *
 * <h2>Limits (the original platform's)</h2>
 *
 * <ul>
 *   <li>A prompt is at most 1 MiB ({@link Turn}); at most 64 prompts and 8 MiB wait, beyond which
 *       {@link #submit} throws {@link QueueFullException} (429).
 *   <li>A run is killed after 30 minutes (its execution ends {@code CANCELLED}, timed out).
 *   <li>A run writes at most 16 MiB to the byte log, then its {@link #RUN_TRUNCATED} marker; the
 *       session at most 256 MiB with its {@link #SESSION_FULL} marker, after which accepted prompts
 *       still run but write nothing and new ones are refused ({@link OutputFullException}, 507).
 * </ul>
 *
 * <h2>A run</h2>
 *
 * The CLI starts through the session's launch plan (its sandbox), leading its own process group
 * ({@code setsid}), with standard input closed and the adapter's environment only. Standard output
 * goes line by line through the adapter's projector; standard error is kept as diagnostics, each of
 * its lines a warning or an error in the transcript ({@link StderrLines}). Both are redacted on
 * their way into the byte log, and the transcript gets the projector's events. When the CLI exits,
 * or is cancelled, what is left of its process tree is killed ({@link PromptRun}).
 *
 * <h2>Its parts</h2>
 *
 * {@link PromptQueue} keeps the table and the queue under one lock; the worker takes one prompt at
 * a time from it and runs it ({@link PromptRun}); {@link SessionOutput} keeps the byte log under
 * its caps, and {@link RunSink} is a run's way into it and into the transcript.
 */
public final class PromptRunner implements AutoCloseable {

  public static final String RUN_TRUNCATED = "\n[berth: prompt output truncated at 16 MiB]\n";
  public static final String SESSION_FULL =
      "\n[berth: session output limit reached; further prompts are disabled]\n";

  /** The runner's numbers; {@link #defaults()} are the contract's, tests shrink them. */
  public record Limits(
      int maxQueued,
      long maxQueuedBytes,
      Duration runTimeout,
      long runOutputCap,
      long sessionOutputCap) {
    public static Limits defaults() {
      return new Limits(64, 8L << 20, Duration.ofMinutes(30), 16L << 20, 256L << 20);
    }
  }

  /**
   * Where the runner finds what it needs.
   *
   * @param environment variables every run gets beside the adapter's: what the session's sandbox
   *     offers the CLI (its shared directory, {@code BERTH_SHARED_DIR})
   * @param markers who confirms the approval markers of the answers: the session's credential proxy
   *     when it gates tool calls, {@link MarkerConfirmation#NONE} otherwise
   */
  public record Setup(
      SessionId session,
      AgentAdapter adapter,
      Path cli,
      AgentPaths hostPaths,
      AgentPaths workloadPaths,
      LaunchPlan plan,
      ProviderEndpoint provider,
      List<String> secrets,
      OutputSink output,
      long outputAlreadyWritten,
      TranscriptLog transcript,
      Clock clock,
      Limits limits,
      Map<String, String> environment,
      MarkerConfirmation markers) {

    public Setup {
      environment = Map.copyOf(environment);
      Objects.requireNonNull(markers, "markers");
    }

    /** A setup whose proxy writes no approval marker (it gates nothing). */
    public Setup(
        SessionId session,
        AgentAdapter adapter,
        Path cli,
        AgentPaths hostPaths,
        AgentPaths workloadPaths,
        LaunchPlan plan,
        ProviderEndpoint provider,
        List<String> secrets,
        OutputSink output,
        long outputAlreadyWritten,
        TranscriptLog transcript,
        Clock clock,
        Limits limits,
        Map<String, String> environment) {
      this(
          session,
          adapter,
          cli,
          hostPaths,
          workloadPaths,
          plan,
          provider,
          secrets,
          output,
          outputAlreadyWritten,
          transcript,
          clock,
          limits,
          environment,
          MarkerConfirmation.NONE);
    }

    /** A setup whose runs get the adapter's environment only. */
    public Setup(
        SessionId session,
        AgentAdapter adapter,
        Path cli,
        AgentPaths hostPaths,
        AgentPaths workloadPaths,
        LaunchPlan plan,
        ProviderEndpoint provider,
        List<String> secrets,
        OutputSink output,
        long outputAlreadyWritten,
        TranscriptLog transcript,
        Clock clock,
        Limits limits) {
      this(
          session,
          adapter,
          cli,
          hostPaths,
          workloadPaths,
          plan,
          provider,
          secrets,
          output,
          outputAlreadyWritten,
          transcript,
          clock,
          limits,
          Map.of());
    }
  }

  private final Setup setup;
  private final PromptQueue queue;
  private final SessionOutput output;
  private final Redaction redaction;
  private final ApprovalLedger approvals;
  private final RandomGenerator random = RandomGenerator.getDefault();
  private final Thread worker;

  public PromptRunner(Setup setup) {
    this.setup = Objects.requireNonNull(setup, "setup");
    this.output = new SessionOutput(setup.output(), setup.outputAlreadyWritten(), setup.limits());
    this.redaction = new Redaction(setup.secrets());
    this.queue = new PromptQueue(setup, output, redaction);
    this.approvals = new ApprovalLedger(setup.markers(), setup.transcript());
    this.worker =
        Thread.ofVirtual().name("berth-prompts-" + setup.session().value()).start(this::work);
  }

  /**
   * Queues {@code turn}; its execution, {@code QUEUED}.
   *
   * @throws QueueFullException when 64 prompts or 8 MiB already wait
   * @throws OutputFullException when the session's output is full
   */
  public ExecutionView submit(Turn turn) {
    return queue.submit(turn);
  }

  public Optional<ExecutionView> get(ExecutionId id) {
    return queue.get(id);
  }

  /** Takes no new prompt until {@link #openAdmission} (a checkpoint drains the accepted ones). */
  public void closeAdmission() {
    queue.admit(false);
  }

  /** Takes prompts again (the checkpoint was given up). */
  public void openAdmission() {
    queue.admit(true);
  }

  /**
   * Runs {@code action} while no prompt runs or waits and the worker starts none; a prompt accepted
   * meanwhile waits for it. For the node's own changes in the session's home (a plugin refresh):
   * nothing of the session runs then to race them.
   *
   * @throws BusyException when a prompt runs or waits
   * @throws AdmissionClosedException while a checkpoint drains the session
   */
  public <T> T whileIdle(Supplier<T> action) {
    return queue.whileIdle(action);
  }

  /** Every prompt of this runner, in the order they came. */
  public List<ExecutionView> list() {
    return queue.list();
  }

  /**
   * Whether a prompt runs or waits, or the node holds the runner ({@link #whileIdle}): the idle
   * policy counts the session as busy then, and a checkpoint's drain waits.
   */
  public boolean busy() {
    return queue.busy();
  }

  /** Cancels a waiting prompt, or kills a running one's process group; repeating it is harmless. */
  public ExecutionView cancel(ExecutionId id) {
    queue.cancel(id).ifPresent(PromptQueue.Running::kill);
    return get(id).orElseThrow();
  }

  /** Waits until no prompt runs or waits, at most {@code timeout}; whether it got there. */
  public boolean awaitIdle(Duration timeout) throws InterruptedException {
    return queue.awaitIdle(timeout);
  }

  /** Kills what runs, drops what waits (they end {@code LOST}), and refuses new prompts. */
  @Override
  public void close() {
    queue.close().ifPresent(PromptQueue.Running::kill);
    worker.interrupt();
  }

  /** The worker: one run at a time, in the order the prompts came, until the runner closes. */
  private void work() {
    while (true) {
      Optional<PromptEntry> next;
      try {
        next = queue.take();
      } catch (InterruptedException e) {
        return;
      }
      if (next.isEmpty()) {
        return;
      }
      new PromptRun(setup, queue, output, redaction, random, next.get(), approvals).runOrFail();
    }
  }

  /** 64 prompts or 8 MiB already wait: the agent's API answers 429. */
  public static final class QueueFullException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    QueueFullException(int queued, long bytes, Limits limits) {
      super(
          "the prompt queue is full: "
              + queued
              + " prompts ("
              + bytes
              + " bytes) wait, at most "
              + limits.maxQueued()
              + " and "
              + limits.maxQueuedBytes()
              + " bytes are held; retry once a prompt has run");
    }
  }

  /** A prompt runs or waits, or the runner is held already: {@link #whileIdle} does not run. */
  public static final class BusyException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    BusyException(long pending) {
      super(
          pending == 0
              ? "is changing its home between prompts already"
              : "has " + pending + " prompt" + (pending == 1 ? "" : "s") + " running or waiting");
    }
  }

  /** A checkpoint drains the session: the agent's API answers 409 SUSPENDING. */
  public static final class AdmissionClosedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    AdmissionClosedException() {
      super(
          "the session is being suspended and admits no prompt; retry once it is a snapshot"
              + " (which a write then restores)");
    }
  }

  /** The session's output reached its cap: the agent's API answers 507. */
  public static final class OutputFullException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    OutputFullException() {
      super(
          "session output limit reached; further prompts are disabled (delete the session or start a new one)");
    }
  }
}
