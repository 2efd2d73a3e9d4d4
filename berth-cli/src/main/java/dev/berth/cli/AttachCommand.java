package dev.berth.cli;

import dev.berth.client.AttachConnection;
import dev.berth.client.BerthApiException;
import dev.berth.client.BerthClient;
import dev.berth.client.BerthClientException;
import dev.berth.core.session.SessionId;
import java.io.PrintWriter;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code berth attach ID}: the session's terminal in the user's own. The user's TTY goes into raw
 * mode (restored in a finally and, should the JVM be stopped, in a shutdown hook), every keystroke
 * goes to the session as a binary WebSocket frame, output frames are written raw, the size is sent
 * at start and on every resize, and the detach key (Ctrl-] by default) ends it, leaving the session
 * running.
 */
@Command(
    name = "attach",
    mixinStandardHelpOptions = true,
    versionProvider = BerthCommand.Version.class,
    description = {
      "Attaches your terminal to a session's shell.",
      "Every key goes to the session, Ctrl-C included; press Ctrl-] (see --detach-key) to"
          + " detach, which leaves the session running. Needs a terminal: for scripts use"
          + " 'berth logs -f ID' or 'berth exec ID -- CMD'."
    })
final class AttachCommand extends ClientCommand {

  @Parameters(
      paramLabel = "SESSION",
      converter = SessionRef.Converter.class,
      description = SessionRef.DESCRIPTION)
  SessionRef session;

  /** The session {@link #session} names, found at the start of {@code run}. */
  @SuppressWarnings("NullAway.Init")
  SessionId id;

  @Option(
      names = "--detach-key",
      paramLabel = "KEY",
      defaultValue = DetachKey.DEFAULT,
      converter = DetachKey.Converter.class,
      description = "The key that detaches: ctrl-X or ^X, or none (default: ${DEFAULT-VALUE}).")
  DetachKey detachKey;

  @Option(
      names = "--offset",
      paramLabel = "N",
      description =
          "Replay the output from this byte offset (0: everything kept); default: only what"
              + " comes next.")
  @Nullable Long offset;

  @Override
  int run(BerthClient client) throws Exception {
    id = session.resolve(client);
    CliEnvironment env = environment();
    Terminal terminal = env.terminal().get();
    if (!terminal.isInteractive()) {
      throw new UsageException(
          "berth attach needs a terminal, but standard input is not a TTY; use 'berth logs -f "
              + id
              + "' to follow its output or 'berth exec "
              + id
              + " -- CMD' to run a command");
    }
    if (offset != null && offset < 0) {
      throw new UsageException("--offset is a byte offset >= 0, was " + offset);
    }
    long start = offset != null ? offset : endOfOutput(client);
    ShellGate gate = new ShellGate();
    AttachConnection connection =
        client.attach(id, start, TerminalRelay.output(env.stdout(), gate, detachKey));
    PrintWriter err = err();
    err.println("Attached to session " + id + "; detach with " + detachKey.describe() + ".");
    err.flush();
    Outcome outcome;
    try (connection) {
      outcome = relay(env, terminal, connection, gate);
    }
    err.println();
    err.println(outcome.message());
    err.flush();
    return outcome.exitCode();
  }

  /**
   * The end of the session's output now, so the terminal shows what comes next rather than
   * replaying everything. A read past the end answers with the current length; it is also an
   * access, which restores a snapshot before the WebSocket needs its runtime.
   */
  private long endOfOutput(BerthClient client) {
    try {
      return client.read(id, Long.MAX_VALUE).nextOffset();
    } catch (BerthApiException e) {
      if (e.status() == 400) {
        return 0;
      }
      throw e;
    }
  }

  /** How the attach ended, for the user. */
  record Outcome(String message, int exitCode) {}

  private Outcome relay(
      CliEnvironment env, Terminal terminal, AttachConnection connection, ShellGate gate)
      throws Exception {
    Terminal.Handle raw = terminal.rawMode();
    Thread restoreOnExit = env.ownsProcess() ? restoreHook(raw) : null;
    Terminal.Handle resizes = null;
    try {
      sendSize(terminal, connection);
      resizes = terminal.watchResize(() -> sendSize(terminal, connection));
      CompletableFuture<TerminalRelay.End> input = new CompletableFuture<>();
      Thread.ofPlatform()
          .daemon()
          .name("berth-attach-input")
          .start(
              () -> {
                try {
                  input.complete(
                      TerminalRelay.pumpInput(env.stdin(), connection::send, detachKey, gate));
                } catch (Exception | Error e) {
                  input.completeExceptionally(e);
                }
              });
      CompletableFuture.anyOf(input, connection.closed()).exceptionally(e -> null).get();
      return outcome(input, connection, gate);
    } finally {
      if (resizes != null) {
        resizes.close();
      }
      raw.close();
      if (restoreOnExit != null) {
        try {
          Runtime.getRuntime().removeShutdownHook(restoreOnExit);
        } catch (IllegalStateException shuttingDown) {
          // The hook restores the terminal too; restoring twice is harmless.
        }
      }
    }
  }

  private Outcome outcome(
      CompletableFuture<TerminalRelay.End> input, AttachConnection connection, ShellGate gate)
      throws InterruptedException {
    if (connection.closed().isDone()) {
      AttachConnection.Closed closed = connection.closed().join();
      String reason =
          closed.reason() == null || closed.reason().isBlank()
              ? "no reason given"
              : closed.reason();
      return closed.statusCode() == 1000
          ? new Outcome("berth: the session closed the terminal: " + Escape.text(reason), 0)
          : new Outcome(
              "berth: the terminal connection closed ("
                  + closed.statusCode()
                  + "): "
                  + Escape.text(reason),
              ErrorReporter.FAILED);
    }
    try {
      return switch (input.get()) {
        case DETACHED -> new Outcome(detached(gate), 0);
        case INPUT_CLOSED -> new Outcome("Input ended; detached from session " + id + ".", 0);
      };
    } catch (ExecutionException e) {
      if (e.getCause() instanceof BerthClientException failure) {
        return new Outcome(ErrorReporter.message(failure), ErrorReporter.FAILED);
      }
      return new Outcome(
          ErrorReporter.message(Objects.requireNonNullElse(e.getCause(), e)), ErrorReporter.FAILED);
    }
  }

  /** Never claims a shell keeps running that is gone. */
  private String detached(ShellGate gate) {
    if (gate.exitStatus().isPresent()) {
      return "Detached from session "
          + id
          + "; its shell had exited with status "
          + gate.exitStatus().getAsInt()
          + ". The session stays active: the next 'berth attach' or write starts a new shell.";
    }
    return "Detached from session " + id + "; its shell keeps running.";
  }

  private static void sendSize(Terminal terminal, AttachConnection connection) {
    terminal
        .size()
        .filter(s -> s.cols() <= 1000 && s.rows() <= 1000)
        .ifPresent(
            s -> {
              try {
                connection.resize(s.cols(), s.rows());
              } catch (BerthClientException closing) {
                // The connection is ending; the next loop turn notices.
              }
            });
  }

  private static Thread restoreHook(Terminal.Handle raw) {
    Thread hook = new Thread(raw::close, "berth-attach-restore-tty");
    Runtime.getRuntime().addShutdownHook(hook);
    return hook;
  }
}
