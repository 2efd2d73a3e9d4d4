package dev.berth.cli;

import dev.berth.client.BerthClient;
import dev.berth.client.Execution;
import dev.berth.client.Operation;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code berth idle}, {@code operations} and {@code executions}: what the platform decided and did
 * about a session, read passively (none of them is an access or restores anything).
 */
final class InspectCommands {

  private InspectCommands() {}

  /** The session argument and the output format every one of them takes. */
  abstract static class Inspect extends ClientCommand {
    @Parameters(
        paramLabel = "SESSION",
        converter = SessionRef.Converter.class,
        description = SessionRef.DESCRIPTION)
    SessionRef session;

    @Mixin FormatOption format;

    void print(JsonNode json, Table table) {
      print(format.format, json, wide -> table.render());
    }

    static String when(Optional<Instant> at) {
      return at.map(Instant::toString).orElse("-");
    }
  }

  /** {@code berth idle SESSION}. */
  @Command(
      name = "idle",
      mixinStandardHelpOptions = true,
      versionProvider = BerthCommand.Version.class,
      description = "What the idle policy decides about a session now, and why.")
  static final class Idle extends Inspect {
    @Override
    int run(BerthClient client) {
      JsonNode decision = client.idle(session.resolve(client));
      Table table = new Table(List.of("DECISION", "REASON", "SUSPEND AT"));
      table.row(
          List.of(
              decision.path("decision").asString("-"),
              decision.path("reason").asString("-"),
              decision.path("suspendAt").asString(decision.path("heldUntil").asString("-"))));
      print(decision, table);
      return 0;
    }
  }

  /** {@code berth operations SESSION}. */
  @Command(
      name = "operations",
      mixinStandardHelpOptions = true,
      versionProvider = BerthCommand.Version.class,
      description = "The lifecycle operations that served a session's intents, oldest first.")
  static final class Operations extends Inspect {
    @Override
    int run(BerthClient client) {
      List<Operation> operations = client.operations(session.resolve(client));
      Table table = new Table(List.of("ID", "TYPE", "STATE", "CREATED", "FINISHED", "ERROR"));
      ObjectNode document = JsonMapper.builder().build().createObjectNode();
      ArrayNode array = document.putArray("operations");
      for (Operation op : operations) {
        array.add(op.json());
        table.row(
            List.of(
                op.id().toString(),
                op.type(),
                op.state(),
                when(op.createdAt()),
                when(op.finishedAt()),
                op.error().map(e -> e.path("reason").asString("")).orElse("")));
      }
      print(document, table);
      return 0;
    }
  }

  /** {@code berth executions SESSION}. */
  @Command(
      name = "executions",
      mixinStandardHelpOptions = true,
      versionProvider = BerthCommand.Version.class,
      description = "A session's executions (berth exec, agent prompts), oldest first.")
  static final class Executions extends Inspect {
    @Override
    int run(BerthClient client) {
      List<Execution> executions = client.executions(session.resolve(client));
      Table table = new Table(List.of("ID", "STATE", "EXIT", "SUBMITTED", "COMMAND"));
      ObjectNode document = JsonMapper.builder().build().createObjectNode();
      ArrayNode array = document.putArray("executions");
      for (Execution e : executions) {
        array.add(e.json());
        table.row(
            List.of(
                e.id().toString(),
                e.state(),
                e.exitCode().isPresent() ? Integer.toString(e.exitCode().getAsInt()) : "-",
                when(e.submittedAt()),
                e.command()));
      }
      print(document, table);
      return 0;
    }
  }
}
