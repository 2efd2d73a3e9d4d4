package dev.berth.agent.agentcli;

import dev.berth.agent.execution.ExecutionView;
import dev.berth.agent.isolation.LaunchPlan;
import dev.berth.agent.isolation.ProcessTree;
import dev.berth.agent.output.OutputSink;
import dev.berth.core.execution.Execution;
import dev.berth.core.execution.ExecutionId;
import dev.berth.core.execution.ExecutionKind;
import dev.berth.core.session.SessionId;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.random.RandomGenerator;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
 * goes line by line through the adapter's projector; standard error is kept as diagnostics. Both
 * are redacted on their way into the byte log, and the transcript gets the projector's events. When
 * the CLI exits, or is cancelled, what is left of its process tree is killed.
 */
public final class PromptRunner implements AutoCloseable {

  public static final String RUN_TRUNCATED = "\n[berth: prompt output truncated at 16 MiB]\n";
  public static final String SESSION_FULL =
      "\n[berth: session output limit reached; further prompts are disabled]\n";

  private static final Logger LOG = LoggerFactory.getLogger(PromptRunner.class);

  /** Tags every process of a run with its execution id, as commands' are. */
  static final String TAG_VARIABLE = "BERTH_EXECUTION";

  private static final Duration DRAIN = Duration.ofSeconds(5);
  private static final int COMMAND_SUMMARY = 1024;
  private static final List<Path> SETSID =
      List.of(Path.of("/usr/bin/setsid"), Path.of("/bin/setsid"));

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

  /** Where the runner finds what it needs. */
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
      Limits limits) {}

  private final Setup setup;
  private final RandomGenerator random = RandomGenerator.getDefault();
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();
  private final Map<ExecutionId, Entry> entries = new LinkedHashMap<>();
  private final Deque<Entry> queue = new ArrayDeque<>();
  private final Thread worker;
  private long queuedBytes;
  private long sessionOutput;
  private boolean sessionFull;
  private boolean closed;
  // Closed while a checkpoint drains the accepted prompts: checked under the lock that submit()
  // queues under, so no prompt gets in after the drain saw the runner idle.
  private boolean admitting = true;
  // Set while the node changes the session's home between prompts (a plugin refresh): the worker
  // starts no run, so no process of the session runs while the node writes there.
  private boolean holding;

  private static final class Entry {
    final Turn turn;
    Execution execution;
    boolean timedOut;
    boolean cancelled;
    long outputBytes;
    @Nullable Process process;

    Entry(Turn turn, Execution execution) {
      this.turn = turn;
      this.execution = execution;
    }
  }

  public PromptRunner(Setup setup) {
    this.setup = Objects.requireNonNull(setup, "setup");
    this.sessionOutput = setup.outputAlreadyWritten();
    this.sessionFull = sessionOutput >= setup.limits().sessionOutputCap();
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
    long bytes = turn.prompt().getBytes(StandardCharsets.UTF_8).length;
    lock.lock();
    try {
      requireAdmitting();
      if (sessionFull) {
        throw new OutputFullException();
      }
      Limits limits = setup.limits();
      if (queue.size() >= limits.maxQueued() || queuedBytes + bytes > limits.maxQueuedBytes()) {
        throw new QueueFullException(queue.size(), queuedBytes, limits);
      }
      ExecutionId id = ExecutionId.generate(random);
      while (entries.containsKey(id)) {
        id = ExecutionId.generate(random);
      }
      String command =
          turn.prompt().length() <= COMMAND_SUMMARY
              ? turn.prompt()
              : turn.prompt().substring(0, COMMAND_SUMMARY) + "…";
      Entry entry =
          new Entry(
              turn,
              Execution.queued(
                  id,
                  setup.session(),
                  ExecutionKind.PROMPT,
                  redact(command),
                  0,
                  Optional.empty(),
                  setup.clock().instant()));
      entries.put(id, entry);
      queue.addLast(entry);
      queuedBytes += bytes;
      changed.signalAll();
      return view(entry);
    } finally {
      lock.unlock();
    }
  }

  public Optional<ExecutionView> get(ExecutionId id) {
    lock.lock();
    try {
      return Optional.ofNullable(entries.get(id)).map(PromptRunner::view);
    } finally {
      lock.unlock();
    }
  }

  /** Takes no new prompt until {@link #openAdmission} (a checkpoint drains the accepted ones). */
  public void closeAdmission() {
    lock.lock();
    try {
      admitting = false;
    } finally {
      lock.unlock();
    }
  }

  /** Takes prompts again (the checkpoint was given up). */
  public void openAdmission() {
    lock.lock();
    try {
      admitting = true;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Runs {@code action} while no prompt runs or waits and the worker starts none; a prompt accepted
   * meanwhile waits for it. For the node's own changes in the session's home (a plugin refresh):
   * nothing of the session runs then to race them.
   *
   * @throws BusyException when a prompt runs or waits
   * @throws AdmissionClosedException while a checkpoint drains the session
   */
  public <T> T whileIdle(java.util.function.Supplier<T> action) {
    lock.lock();
    try {
      requireAdmitting();
      long pending = pending();
      if (holding || pending > 0) {
        throw new BusyException(pending);
      }
      holding = true;
    } finally {
      lock.unlock();
    }
    try {
      return action.get();
    } finally {
      lock.lock();
      try {
        holding = false;
        changed.signalAll();
      } finally {
        lock.unlock();
      }
    }
  }

  /** Under the lock: how many prompts run or wait. */
  private long pending() {
    return entries.values().stream().filter(e -> !e.execution.state().isFinished()).count();
  }

  /** Under the lock: neither closed nor draining for a checkpoint. */
  private void requireAdmitting() {
    if (closed) {
      throw new IllegalStateException("the prompts of session " + setup.session() + " are closed");
    }
    if (!admitting) {
      throw new AdmissionClosedException();
    }
  }

  /** Every prompt of this runner, in the order they came. */
  public List<ExecutionView> list() {
    lock.lock();
    try {
      return entries.values().stream().map(PromptRunner::view).toList();
    } finally {
      lock.unlock();
    }
  }

  /**
   * Whether a prompt runs or waits, or the node holds the runner ({@link #whileIdle}): the idle
   * policy counts the session as busy then, and a checkpoint's drain waits.
   */
  public boolean busy() {
    lock.lock();
    try {
      return holding || pending() > 0;
    } finally {
      lock.unlock();
    }
  }

  /** Cancels a waiting prompt, or kills a running one's process group; repeating it is harmless. */
  public ExecutionView cancel(ExecutionId id) {
    Process running;
    lock.lock();
    try {
      Entry entry = entries.get(id);
      if (entry == null) {
        throw new dev.berth.core.error.NotFoundException(
            "execution " + id.value() + " of session " + setup.session().value());
      }
      if (entry.execution.state().isFinished()) {
        return view(entry);
      }
      entry.cancelled = true;
      if (queue.remove(entry)) {
        queuedBytes -= entry.turn.prompt().getBytes(StandardCharsets.UTF_8).length;
        entry.execution = entry.execution.cancel(setup.clock().instant());
        changed.signalAll();
        return view(entry);
      }
      running = entry.process;
    } finally {
      lock.unlock();
    }
    if (running != null) {
      kill(running, id.value());
    }
    return get(id).orElseThrow();
  }

  /** Waits until no prompt runs or waits, at most {@code timeout}; whether it got there. */
  public boolean awaitIdle(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    lock.lock();
    try {
      while (busy()) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        changed.awaitNanos(left);
      }
      return true;
    } finally {
      lock.unlock();
    }
  }

  /** Kills what runs, drops what waits (they end {@code LOST}), and refuses new prompts. */
  @Override
  public void close() {
    Process running = null;
    String runningId = "";
    lock.lock();
    try {
      if (closed) {
        return;
      }
      closed = true;
      for (Entry entry : entries.values()) {
        if (!entry.execution.state().isFinished()) {
          if (entry.process != null) {
            running = entry.process;
            runningId = entry.execution.id().value();
          } else {
            entry.execution = entry.execution.lose(setup.clock().instant());
          }
        }
      }
      queue.clear();
      changed.signalAll();
    } finally {
      lock.unlock();
    }
    if (running != null) {
      kill(running, runningId);
    }
    worker.interrupt();
  }

  private void work() {
    while (true) {
      Entry entry;
      lock.lock();
      try {
        while ((queue.isEmpty() || holding) && !closed) {
          changed.await();
        }
        if (closed) {
          return;
        }
        entry = queue.removeFirst();
        queuedBytes -= entry.turn.prompt().getBytes(StandardCharsets.UTF_8).length;
      } catch (InterruptedException e) {
        return;
      } finally {
        lock.unlock();
      }
      try {
        run(entry);
      } catch (RuntimeException e) {
        LOG.warn("a prompt of session {} failed to run", setup.session().value(), e);
        // A run that failed on the node's side (its log could not be written, say) ends with its
        // process tree, as every run does: an execution is never finished while its CLI lives.
        Process started;
        lock.lock();
        try {
          started = entry.process;
        } finally {
          lock.unlock();
        }
        try {
          if (started != null) {
            kill(started, entry.execution.id().value());
            awaitExit(started);
          }
        } finally {
          finish(entry, OptionalLong.empty(), Outcome.FAILED);
        }
      }
    }
  }

  /**
   * The session's plugin folder as the CLI sees it, when its adapter takes plugins and the session
   * has any (the host copied them there at its first start).
   */
  private java.util.Optional<Path> plugins() {
    Path folder = setup.hostPaths().plugins();
    Path parent = folder.getParent();
    // The session writes its home: no link is followed on the way (the host copied nothing then).
    if (!setup.adapter().takesPlugins()
        || parent == null
        || !java.nio.file.Files.isDirectory(parent, java.nio.file.LinkOption.NOFOLLOW_LINKS)
        || !java.nio.file.Files.isDirectory(folder, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
      return java.util.Optional.empty();
    }
    try (java.util.stream.Stream<Path> entries = java.nio.file.Files.list(folder)) {
      if (entries.findAny().isEmpty()) {
        return java.util.Optional.empty();
      }
    } catch (IOException e) {
      return java.util.Optional.empty();
    }
    return java.util.Optional.of(setup.workloadPaths().plugins());
  }

  private void run(Entry entry) {
    AgentAdapter adapter = setup.adapter();
    Conversation started = adapter.begin(Conversation.read(setup.hostPaths().state()), random);
    try {
      // The agent wrote them; the CLI, as the session's uid, must be able to write beside them.
      setup.plan().giveToWorkload(adapter.prepare(setup.hostPaths()));
    } catch (IOException e) {
      throw new java.io.UncheckedIOException("cannot prepare the CLI's state", e);
    }
    String execution = entry.execution.id().value();
    setup
        .transcript()
        .append(
            execution,
            new TranscriptEvent.TurnStarted(
                redact(entry.turn.prompt()), entry.turn.concreteModel()));
    StreamProjector projector = adapter.projector();
    RunSink sink = new RunSink(execution, entry);
    Process process;
    lock.lock();
    try {
      if (entry.cancelled || closed) {
        entry.execution =
            closed
                ? entry.execution.lose(setup.clock().instant())
                : entry.execution.cancel(setup.clock().instant());
        changed.signalAll();
        return;
      }
      process =
          start(
              adapter.argv(setup.cli(), entry.turn, started, setup.provider(), plugins()),
              adapter.environment(setup.workloadPaths(), setup.provider()),
              execution);
      entry.process = process;
      entry.execution = entry.execution.start(sink.logged(), setup.clock().instant());
      changed.signalAll();
    } finally {
      lock.unlock();
    }
    var timeout =
        Thread.ofVirtual()
            .unstarted(
                () -> {
                  try {
                    if (!process.waitFor(
                        setup.limits().runTimeout().toNanos(), TimeUnit.NANOSECONDS)) {
                      lock.lock();
                      try {
                        entry.timedOut = true;
                      } finally {
                        lock.unlock();
                      }
                      kill(process, execution);
                    }
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  }
                });
    timeout.start();
    Thread errors = Thread.ofVirtual().start(() -> diagnostics(process.getErrorStream(), sink));
    try (BufferedReader lines =
        new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = lines.readLine()) != null) {
        projector.line(line, sink);
      }
    } catch (IOException e) {
      LOG.debug("the output of prompt {} ended: {}", execution, e.toString());
    }
    int code;
    try {
      code = process.waitFor();
      errors.join(DRAIN);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      kill(process, execution);
      code = -1;
    }
    // What the CLI left running ends with its run.
    kill(process, execution);
    timeout.interrupt();
    projector.end(sink);
    sink.finish();
    boolean cancelled;
    boolean timedOut;
    lock.lock();
    try {
      cancelled = entry.cancelled;
      timedOut = entry.timedOut;
    } finally {
      lock.unlock();
    }
    boolean succeeded = code == 0 && !cancelled && !timedOut;
    adapter.after(started, projector, succeeded).write(setup.hostPaths().state());
    boolean lost;
    lock.lock();
    try {
      lost = closed;
    } finally {
      lock.unlock();
    }
    // A run the runner's close cut short ends LOST, as commands do when their runtime goes.
    Outcome outcome =
        timedOut
            ? Outcome.TIMED_OUT
            : cancelled
                ? Outcome.CANCELLED
                : succeeded ? Outcome.SUCCEEDED : lost ? Outcome.LOST : Outcome.FAILED;
    finish(entry, OptionalLong.of(code), outcome);
  }

  private void finish(Entry entry, OptionalLong code, Outcome outcome) {
    // The entry first, so that a reader who sees the execution finished finds it; but a transcript
    // that cannot be written (a full disk) must not keep the execution running for ever.
    try {
      setup
          .transcript()
          .append(
              entry.execution.id().value(),
              new TranscriptEvent.TurnFinished(outcome.wireName(), code));
    } catch (RuntimeException e) {
      LOG.warn(
          "the end of prompt {} could not be written to the transcript: {}",
          entry.execution.id().value(),
          e.toString());
    }
    lock.lock();
    try {
      Execution execution = entry.execution;
      if (!execution.state().isFinished()) {
        long end = execution.outputStart() + entry.outputBytes;
        entry.execution =
            switch (outcome) {
              case CANCELLED, TIMED_OUT -> execution.cancel(setup.clock().instant());
              case LOST -> execution.lose(setup.clock().instant());
              case SUCCEEDED, FAILED ->
                  execution.state() == dev.berth.core.execution.ExecutionState.QUEUED
                      ? execution.lose(setup.clock().instant())
                      : execution.exit((int) code.orElse(-1), end, setup.clock().instant());
            };
      }
      entry.process = null;
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  private Process start(List<String> argv, Map<String, String> environment, String tag) {
    List<String> command = new ArrayList<>();
    command.add(setsid().toString());
    command.add("-w");
    command.addAll(argv);
    LaunchPlan plan = setup.plan();
    Path workspace = setup.workloadPaths().workspace();
    ProcessBuilder builder =
        new ProcessBuilder(plan.wrap(command, workspace))
            .directory(plan.spawnDirectory(workspace).toFile())
            .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
    builder.environment().clear();
    builder.environment().put("PATH", "/usr/local/bin:/usr/bin:/bin");
    builder.environment().put("LANG", "C.UTF-8");
    builder.environment().putAll(environment);
    builder.environment().putAll(plan.environment());
    builder.environment().put(TAG_VARIABLE, tag);
    try {
      return builder.start();
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(
          "cannot start " + argv.getFirst() + " for session " + setup.session().value(), e);
    }
  }

  /**
   * Kills the run's process tree, and what it left that was reparented out of the tree (found by
   * its tag; unconfined, nothing else would take them; confined, their PID namespace goes with the
   * sandbox).
   */
  private static void awaitExit(Process process) {
    try {
      process.waitFor(DRAIN.toNanos(), TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void kill(Process process, String tag) {
    // Through the process's own handle, never its pid: once it was reaped, the pid may be another
    // process's.
    if (process.isAlive()) {
      process.toHandle().descendants().forEach(ProcessHandle::destroyForcibly);
      process.destroyForcibly();
    }
    ProcessTree.carrying(TAG_VARIABLE, tag).forEach(ProcessHandle::destroyForcibly);
  }

  private void diagnostics(InputStream errors, RunSink sink) {
    Utf8Text text = new Utf8Text();
    byte[] buffer = new byte[8192];
    try (errors) {
      int n;
      while ((n = errors.read(buffer)) >= 0) {
        sink.diagnostic(text.decode(buffer, 0, n));
      }
    } catch (IOException e) {
      LOG.debug("diagnostics ended: {}", e.toString());
    }
    sink.diagnostic(text.finish());
  }

  private String redact(String text) {
    StreamRedactor redactor = new StreamRedactor(setup.secrets());
    return redactor.redact(text) + redactor.finish();
  }

  private static Path setsid() {
    return SETSID.stream()
        .filter(p -> p.toFile().canExecute())
        .findFirst()
        .orElse(SETSID.getFirst());
  }

  private static ExecutionView view(Entry entry) {
    return new ExecutionView(entry.execution, entry.timedOut, entry.outputBytes);
  }

  /**
   * One run's way into the byte log and the transcript: the answer and the diagnostics each through
   * their own redactor (either may be cut inside a secret), one writer at a time, within the caps.
   */
  private final class RunSink implements ProjectionSink {
    private final String execution;
    private final Entry entry;
    private final StreamRedactor answers = new StreamRedactor(setup.secrets());
    private final StreamRedactor errors = new StreamRedactor(setup.secrets());
    private final StreamRedactor transcriptAnswers = new StreamRedactor(setup.secrets());
    private long written;
    private boolean truncated;

    RunSink(String execution, Entry entry) {
      this.execution = execution;
      this.entry = entry;
    }

    long logged() {
      lock.lock();
      try {
        return sessionOutput;
      } finally {
        lock.unlock();
      }
    }

    @Override
    public void text(String text) {
      write(answers.redact(text));
    }

    void diagnostic(String text) {
      write(errors.redact(text));
    }

    void finish() {
      write(answers.finish());
      write(errors.finish());
      String held = transcriptAnswers.finish();
      if (!held.isEmpty()) {
        setup.transcript().append(execution, new TranscriptEvent.AssistantText(held));
      }
    }

    @Override
    public void event(TranscriptEvent event) {
      if (event instanceof TranscriptEvent.AssistantText text) {
        // Deltas stream: a secret split across two of them is caught as in the byte log.
        String safe = transcriptAnswers.redact(text.text());
        if (!safe.isEmpty()) {
          setup.transcript().append(execution, new TranscriptEvent.AssistantText(safe));
        }
        return;
      }
      setup.transcript().append(execution, redactEvent(event));
    }

    private void write(String text) {
      if (text.isEmpty()) {
        return;
      }
      byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
      lock.lock();
      try {
        if (sessionFull || truncated) {
          return;
        }
        Limits limits = setup.limits();
        long runRoom = limits.runOutputCap() - RUN_TRUNCATED.length() - written;
        long sessionRoom = limits.sessionOutputCap() - SESSION_FULL.length() - sessionOutput;
        if (bytes.length <= Math.min(runRoom, sessionRoom)) {
          append(bytes);
          return;
        }
        boolean sessionCut = sessionRoom <= runRoom;
        append(prefix(text, (int) Math.max(0, Math.min(runRoom, sessionRoom))));
        if (sessionCut) {
          append(SESSION_FULL.getBytes(StandardCharsets.UTF_8));
          sessionFull = true;
        } else {
          append(RUN_TRUNCATED.getBytes(StandardCharsets.UTF_8));
          truncated = true;
        }
      } finally {
        lock.unlock();
      }
    }

    private void append(byte[] bytes) {
      setup.output().append(bytes, 0, bytes.length);
      written += bytes.length;
      sessionOutput += bytes.length;
      entry.outputBytes += bytes.length;
    }
  }

  /**
   * The longest prefix of {@code text} whose UTF-8 fits {@code room} bytes, whole characters only.
   */
  static byte[] prefix(String text, int room) {
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    if (bytes.length <= room) {
      return bytes;
    }
    int end = room;
    while (end > 0 && (bytes[end] & 0xC0) == 0x80) {
      end--;
    }
    return java.util.Arrays.copyOf(bytes, end);
  }

  private TranscriptEvent redactEvent(TranscriptEvent event) {
    return switch (event) {
      case TranscriptEvent.TurnStarted t ->
          new TranscriptEvent.TurnStarted(redact(t.prompt()), t.model());
      case TranscriptEvent.AssistantText t -> new TranscriptEvent.AssistantText(redact(t.text()));
      case TranscriptEvent.Thinking t ->
          new TranscriptEvent.Thinking(redact(t.summary()), t.length());
      case TranscriptEvent.ToolCall t ->
          new TranscriptEvent.ToolCall(t.id(), t.name(), redact(t.inputSummary()));
      case TranscriptEvent.PermissionDenied t ->
          new TranscriptEvent.PermissionDenied(t.tool(), redact(t.message()));
      case TranscriptEvent.Failure t -> new TranscriptEvent.Failure(redact(t.message()));
      case TranscriptEvent.Raw t -> new TranscriptEvent.Raw(redact(t.json()));
      case TranscriptEvent.ToolResult t -> t;
      case TranscriptEvent.Usage t -> t;
      case TranscriptEvent.TurnFinished t -> t;
    };
  }

  /** How a run ended, as the transcript's {@code turn-finished} says it. */
  enum Outcome {
    SUCCEEDED,
    FAILED,
    CANCELLED,
    TIMED_OUT,
    LOST;

    String wireName() {
      return name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
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
