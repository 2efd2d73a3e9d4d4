package dev.berth.cli;

import dev.berth.client.BerthClientException;
import dev.berth.core.error.BerthException;
import dev.berth.protocol.files.NotPrivateException;
import dev.berth.server.store.StoreAccessException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.util.Objects;
import picocli.CommandLine;

/**
 * Turns a client command's failure into one line on stderr and an exit code: {@code berth:
 * <reason>: <message>} and 1 for an API or connection error, {@code berth: <message>} and 2 for a
 * usage error. Server text in the message is escaped. Parse errors picocli finds itself
 * are usage errors too (2), printed by picocli with the usage help. A server or node that refuses a
 * data directory that is not private says why and how to fix it ({@code berth: <message>}, 1).
 */
final class ErrorReporter implements CommandLine.IExecutionExceptionHandler {

  static final int OK = 0;
  static final int FAILED = 1;
  static final int USAGE = 2;

  @Override
  public int handleExecutionException(
      Exception exception, CommandLine commandLine, CommandLine.ParseResult parseResult) {
    PrintWriter err = commandLine.getErr();
    boolean loggingIn = "login".equals(commandLine.getCommandName());
    err.println(loggingIn ? plain(exception) : message(exception));
    err.flush();
    return exitCode(exception);
  }

  static int exitCode(Throwable failure) {
    return failure instanceof UsageException ? USAGE : FAILED;
  }

  /**
   * The message, with the way out of a refused token: but not for {@code berth login} itself, whose
   * refusal is of the token just given.
   */
  static String message(Throwable failure) {
    if (failure instanceof dev.berth.client.BerthApiException e && e.status() == 401) {
      return plain(failure)
          + "; run berth login --token TOKEN (or set BERTH_TOKEN) with a token that is valid";
    }
    return plain(failure);
  }

  private static String plain(Throwable failure) {
    return switch (failure) {
      case BerthClientException e -> "berth: " + e.reason() + ": " + Escape.text(e.getMessage());
      case UsageException e -> "berth: " + Escape.text(e.getMessage());
      case StartFailedException e -> "berth: " + Escape.text(e.getMessage());
      case UncheckedIOException e ->
          "berth: " + Escape.text(Objects.requireNonNullElse(e.getMessage(), e.toString()));
      case NotPrivateException e -> "berth: " + Escape.text(e.getMessage());
      // The server's own refusals at start (a bad --store, a store it cannot reach) say what to
      // do already; the exception's class name would only be noise.
      case BerthException e -> "berth: " + Escape.text(e.getMessage());
      case StoreAccessException e ->
          "berth: " + Escape.text(Objects.requireNonNullElse(e.getMessage(), e.toString()));
      default -> "berth: unexpected error: " + Escape.text(failure.toString());
    };
  }
}
