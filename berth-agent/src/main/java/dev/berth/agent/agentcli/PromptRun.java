package dev.berth.agent.agentcli;

import dev.berth.agent.execution.ExecutionOutcome;
import dev.berth.agent.execution.OutputPump;
import dev.berth.agent.execution.ProcessLaunch;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.random.RandomGenerator;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One prompt's run of the CLI, from its conversation to its end in the transcript.
 *
 * <p>The CLI starts through the session's launch plan ({@link ProcessLaunch}) with the adapter's
 * environment only. Standard output goes line by line through the adapter's projector; standard
 * error is kept as diagnostics ({@link RunSink}). When the CLI exits, is cancelled or outlives the
 * run's timeout, what is left of its process tree is killed; then the conversation is kept, with
 * the running totals the CLI reported ({@link UsageLedger}), and the execution records how it
 * ended.
 */
final class PromptRun {

  private static final Logger LOG = LoggerFactory.getLogger(PromptRun.class);
  private static final Duration DRAIN = Duration.ofSeconds(5);

  private final PromptRunner.Setup setup;
  private final PromptQueue queue;
  private final SessionOutput output;
  private final Redaction redaction;
  private final RandomGenerator random;
  private final PromptEntry entry;
  private final ApprovalLedger approvals;

  PromptRun(
      PromptRunner.Setup setup,
      PromptQueue queue,
      SessionOutput output,
      Redaction redaction,
      RandomGenerator random,
      PromptEntry entry,
      ApprovalLedger approvals) {
    this.approvals = approvals;
    this.setup = setup;
    this.queue = queue;
    this.output = output;
    this.redaction = redaction;
    this.random = random;
    this.entry = entry;
  }

  /**
   * Runs the prompt. A run that failed on the node's side (its transcript could not be written,
   * say) ends {@code FAILED} with its process tree, as every run does: an execution is never
   * finished while its CLI lives.
   */
  void runOrFail() {
    try {
      run();
    } catch (RuntimeException e) {
      LOG.warn("a prompt of session {} failed to run", setup.session().value(), e);
      try {
        queue
            .process(entry)
            .ifPresent(
                running -> {
                  running.kill();
                  awaitExit(running.process());
                });
      } finally {
        finish(OptionalLong.empty(), ExecutionOutcome.FAILED);
      }
    }
  }

  private void run() {
    AgentAdapter adapter = setup.adapter();
    Conversation started = prepare(adapter);
    setup
        .transcript()
        .append(
            entry.id(),
            new TranscriptEvent.TurnStarted(
                redaction.text(entry.turn.prompt()), entry.turn.concreteModel()));
    StreamProjector projector = adapter.projector();
    UsageLedger usage = new UsageLedger(started, projector);
    RunSink sink =
        new RunSink(
            entry.id(),
            setup.transcript(),
            redaction,
            output.run(entry.outputBytes),
            usage,
            approvals);
    Optional<Process> launched =
        queue.begin(entry, () -> launch(adapter, started), output.written());
    if (launched.isEmpty()) {
      return; // cancelled while it was being prepared, or the runner closed
    }
    Process process = launched.get();
    Thread timeout = Thread.ofVirtual().start(() -> timeOut(process));
    int code = project(process, projector, sink);
    // What the CLI left running ends with its run.
    ProcessLaunch.killTree(process, entry.id());
    timeout.interrupt();
    projector.end(sink);
    sink.finish();
    ExecutionOutcome outcome = queue.outcome(entry, code);
    usage
        .keep(adapter.after(started, projector, outcome == ExecutionOutcome.SUCCEEDED))
        .write(setup.hostPaths().state());
    finish(OptionalLong.of(code), outcome);
  }

  /** The conversation the run continues; the CLI's state made ready and given to the session. */
  private Conversation prepare(AgentAdapter adapter) {
    Conversation started = adapter.begin(Conversation.read(setup.hostPaths().state()), random);
    try {
      // The agent wrote them; the CLI, as the session's uid, must be able to write beside them.
      setup.plan().giveToWorkload(adapter.prepare(setup.hostPaths()));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot prepare the CLI's state", e);
    }
    return started;
  }

  private Process launch(AgentAdapter adapter, Conversation started) {
    Map<String, String> environment = new LinkedHashMap<>();
    environment.put("PATH", "/usr/local/bin:/usr/bin:/bin");
    environment.put("LANG", "C.UTF-8");
    environment.putAll(setup.environment());
    environment.putAll(adapter.environment(setup.workloadPaths(), setup.provider()));
    var argv = adapter.argv(setup.cli(), entry.turn, started, setup.provider(), plugins());
    try {
      return ProcessLaunch.start(
          setup.plan(), setup.workloadPaths().workspace(), argv, environment, entry.id(), false);
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot start " + argv.getFirst() + " for session " + setup.session().value(), e);
    }
  }

  /**
   * Reads the CLI's standard output through {@code projector} and its standard error as diagnostics
   * until it exits; its exit status (-1 when this thread was interrupted, and the CLI killed).
   */
  private int project(Process process, StreamProjector projector, RunSink sink) {
    Utf8Text stderr = new Utf8Text();
    Thread errors =
        OutputPump.start(
            "berth-prompt-stderr-" + entry.id(),
            process.getErrorStream(),
            (bytes, offset, length) -> sink.diagnostic(stderr.decode(bytes, offset, length)),
            () -> sink.diagnostic(stderr.finish()));
    try (BufferedReader lines =
        new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = lines.readLine()) != null) {
        projector.line(line, sink);
      }
    } catch (IOException e) {
      LOG.debug("the output of prompt {} ended: {}", entry.id(), e.toString());
    }
    try {
      int code = process.waitFor();
      errors.join(DRAIN);
      return code;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      ProcessLaunch.killTree(process, entry.id());
      return -1;
    }
  }

  /** Kills the run once it outlives the runner's timeout; it then ends timed out. */
  private void timeOut(Process process) {
    try {
      if (!process.waitFor(setup.limits().runTimeout().toNanos(), TimeUnit.NANOSECONDS)) {
        queue.timedOut(entry);
        ProcessLaunch.killTree(process, entry.id());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * The transcript's entry first, so that a reader who sees the execution finished finds it; but a
   * transcript that cannot be written (a full disk) must not keep the execution running for ever.
   */
  private void finish(OptionalLong code, ExecutionOutcome outcome) {
    try {
      setup
          .transcript()
          .append(entry.id(), new TranscriptEvent.TurnFinished(outcome.wireName(), code));
    } catch (RuntimeException e) {
      LOG.warn(
          "the end of prompt {} could not be written to the transcript: {}",
          entry.id(),
          e.toString());
    }
    queue.finish(entry, code, outcome);
  }

  /**
   * The session's plugin folder as the CLI sees it, when its adapter takes plugins and the session
   * has any (the host copied them there at its first start).
   */
  private Optional<Path> plugins() {
    Path folder = setup.hostPaths().plugins();
    Path parent = folder.getParent();
    // The session writes its home: no link is followed on the way (the host copied nothing then).
    if (!setup.adapter().takesPlugins()
        || parent == null
        || !Files.isDirectory(parent, LinkOption.NOFOLLOW_LINKS)
        || !Files.isDirectory(folder, LinkOption.NOFOLLOW_LINKS)) {
      return Optional.empty();
    }
    try (Stream<Path> entries = Files.list(folder)) {
      if (entries.findAny().isEmpty()) {
        return Optional.empty();
      }
    } catch (IOException e) {
      return Optional.empty();
    }
    return Optional.of(setup.workloadPaths().plugins());
  }

  private static void awaitExit(Process process) {
    try {
      process.waitFor(DRAIN.toNanos(), TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
