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

  /** Prints sessions in {@code format}; for JSON, {@code json} is the document to print. */
  void print(
      OutputFormat format, List<SessionView> sessions, tools.jackson.databind.JsonNode json) {
    PrintWriter out = out();
    switch (format) {
      case TABLE -> out.print(SessionPrinter.table(sessions, environment().clock().instant()));
      case JSON -> out.print(JsonOutput.render(json));
    }
    out.flush();
  }

  void print(OutputFormat format, SessionView session) {
    print(format, List.of(session), session.json());
    if (format == OutputFormat.TABLE) {
      out().print(SessionPrinter.archive(session));
      out().flush();
    }
  }
}
