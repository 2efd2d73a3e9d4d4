package dev.berth.cli;

import dev.berth.client.BerthClient;
import dev.berth.client.SessionView;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * A command that talks to a Berth server: it gets {@code --url} and {@code --token}, opens a client
 * for its {@link #run} and closes it after. Failures are exceptions; {@link ErrorReporter} prints
 * them and picks the exit code.
 */
abstract class ClientCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Mixin ConnectionOptions connection;

  @Override
  public final Integer call() throws Exception {
    try (BerthClient client = connection.connect(environment())) {
      return run(client);
    }
  }

  /** Does the work; returns the exit code. */
  abstract int run(BerthClient client) throws Exception;

  CliEnvironment environment() {
    return ((BerthCommand) spec.root().userObject()).environment();
  }

  PrintWriter out() {
    return spec.commandLine().getOut();
  }

  PrintWriter err() {
    return spec.commandLine().getErr();
  }

  /**
   * Prints what a command answers: {@code document} for {@code -o json|yaml}, else the table that
   * {@code table} renders (given whether {@code -o wide} asked for more columns).
   */
  void print(
      OutputFormat format,
      tools.jackson.databind.JsonNode document,
      java.util.function.Function<Boolean, String> table) {
    out()
        .print(
            format.document() ? format.render(document) : table.apply(format == OutputFormat.WIDE));
    out().flush();
  }

  /** Prints sessions in {@code format}; for a document, {@code json} is the document to print. */
  void print(
      OutputFormat format, List<SessionView> sessions, tools.jackson.databind.JsonNode json) {
    print(
        format,
        json,
        wide -> SessionPrinter.table(sessions, environment().clock().instant(), wide));
  }

  void print(OutputFormat format, SessionView session) {
    print(format, List.of(session), session.json());
    if (!format.document()) {
      out().print(SessionPrinter.archive(session));
      out().flush();
    }
  }
}
