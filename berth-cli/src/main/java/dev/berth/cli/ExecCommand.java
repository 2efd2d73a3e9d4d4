package dev.berth.cli;

import dev.berth.client.BerthClient;
import dev.berth.client.Execution;
import dev.berth.client.OutputEvent;
import dev.berth.client.OutputFollow;
import dev.berth.client.StreamEnd;
import dev.berth.core.session.SessionId;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code berth exec ID -- CMD...}: runs one command in the session to completion, streams its
 * output to stdout and exits with its exit code. The words are joined into one shell command line,
 * each quoted so the shell sees exactly them ({@code -- sh -c 'a | b'} runs a pipeline). Ctrl-C
 * cancels the execution on the server before the CLI exits.
 */
@Command(
    name = "exec",
    mixinStandardHelpOptions = true,
    versionProvider = BerthCommand.Version.class,
    description = {
      "Runs a command in a session to completion and exits with its exit code.",
      "Put -- before the command when it has options: berth exec ID -- ls -l. The words are"
          + " quoted for the shell, so a pipeline needs its own shell: -- sh -c 'ls | wc -l'."
          + " Ctrl-C cancels it. Exit codes: the command's; 124 when it timed out, 130 when"
          + " cancelled; 1 and 2 are also berth's own API and usage errors."
    })
final class ExecCommand extends ClientCommand {

  static final int TIMED_OUT = 124;
  static final int CANCELLED = 130;

  @Parameters(
      index = "0",
      paramLabel = "SESSION",
      converter = SessionRef.Converter.class,
      description = SessionRef.DESCRIPTION)
  SessionRef session;

  /** The session {@link #session} names, found at the start of {@code run}. */
  @SuppressWarnings("NullAway.Init")
  SessionId id;

  @Parameters(
      index = "1..*",
      arity = "1..*",
      paramLabel = "COMMAND",
      description = "The command and its arguments.")
  List<String> command;

  @Option(
      names = "--timeout",
      paramLabel = "DURATION",
      converter = DurationConverter.class,
      description = "The server cancels the command after this long, as 30s or 5m.")
  @Nullable Duration timeout;

  @Override
  int run(BerthClient client) throws Exception {
    id = session.resolve(client);
    Execution started =
        client.startExecution(id, ShellQuote.join(command), Optional.ofNullable(timeout));
    OutputStream out = environment().stdout();
    Thread cancelOnExit = environment().ownsProcess() ? cancelHook(client, started) : null;
    StreamEnd end;
    try (OutputFollow follow =
        client.followExecution(id, started.id(), 0, chunk -> write(out, chunk))) {
      end = follow.await();
    } finally {
      removeHook(cancelOnExit);
    }
    if (end.reason() == StreamEnd.Reason.FAILED) {
      throw end.error().orElseThrow();
    }
    if (end.reason() == StreamEnd.Reason.UNAVAILABLE) {
      err().println("berth: " + Escape.text(end.detail()));
      err().flush();
      return ErrorReporter.FAILED;
    }
    return exitCode(finalState(client, started), err());
  }

  private static void write(OutputStream out, OutputEvent.Chunk chunk) {
    try {
      out.write(chunk.bytes());
      out.flush();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the command's output: " + e.getMessage(), e);
    }
  }

  /** The execution once finished; the stream ended when it finished, so this is quick. */
  private Execution finalState(BerthClient client, Execution started) throws InterruptedException {
    Execution current = client.execution(id, started.id());
    for (int i = 0; i < 50 && !current.isFinished(); i++) {
      Thread.sleep(200);
      current = client.execution(id, started.id());
    }
    return current;
  }

  /**
   * The exit code for a finished execution: the command's own (clamped to 0..255), 124 when the
   * server's timeout cancelled it (as {@code timeout(1)}), 130 when it was cancelled (as after
   * SIGINT), 1 when it was lost or did not finish.
   */
  static int exitCode(Execution execution, PrintWriter err) {
    int code =
        switch (execution.state()) {
          case "SUCCEEDED" -> execution.exitCode().orElse(0);
          case "FAILED" -> execution.exitCode().orElse(ErrorReporter.FAILED);
          case "CANCELLED" -> execution.timedOut() ? TIMED_OUT : CANCELLED;
          default -> ErrorReporter.FAILED;
        };
    String note =
        switch (execution.state()) {
          case "SUCCEEDED", "FAILED" -> null;
          case "CANCELLED" ->
              execution.timedOut()
                  ? "execution " + execution.id() + " timed out and was cancelled"
                  : "execution " + execution.id() + " was cancelled";
          case "LOST" -> "execution " + execution.id() + " was lost: its shell ended before it did";
          default ->
              "execution " + execution.id() + " has not finished (" + execution.state() + ")";
        };
    if (note != null) {
      err.println("berth: " + Escape.text(note));
      err.flush();
    }
    return code < 0 || code > 255 ? 255 : code;
  }

  private Thread cancelHook(BerthClient client, Execution started) {
    Thread hook =
        new Thread(
            () -> {
              try {
                client.cancelExecution(id, started.id());
                err().println("berth: cancelled execution " + started.id());
                err().flush();
              } catch (RuntimeException e) {
                err().println(ErrorReporter.message(e));
                err().flush();
              }
            },
            "berth-exec-cancel");
    Runtime.getRuntime().addShutdownHook(hook);
    return hook;
  }

  private static void removeHook(@Nullable Thread hook) {
    if (hook == null) {
      return;
    }
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException shuttingDown) {
      // The hook is running or about to: the execution is being cancelled, as intended.
    }
  }
}
