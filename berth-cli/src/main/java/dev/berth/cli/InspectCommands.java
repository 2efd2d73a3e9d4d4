package dev.berth.cli;

import dev.berth.client.BerthClient;
import dev.berth.client.Execution;
import dev.berth.client.Operation;
import dev.berth.core.session.SessionId;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
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

  /** {@code berth audit [SESSION] [--since INSTANT]}. */
  @Command(
      name = "audit",
      mixinStandardHelpOptions = true,
      versionProvider = BerthCommand.Version.class,
      description =
          "The audit log, oldest first: who asked what and what the platform did. With SESSION,"
              + " that session's (a deleted one's too, while its record is kept); without, every"
              + " session's (the admin token only).")
  static final class Audit extends ClientCommand {

    /** Entries asked per request; the whole log is printed, page after page. */
    static final int PAGE = 500;

    @Parameters(
        arity = "0..1",
        paramLabel = "SESSION",
        converter = SessionRef.Converter.class,
        description = SessionRef.DESCRIPTION + " Without it, the whole installation's log.")
    @Nullable SessionRef session;

    @Mixin FormatOption format;

    @Option(
        names = "--since",
        paramLabel = "INSTANT",
        description =
            "Only entries at or after this ISO 8601 instant, such as 2026-12-03T10:00:00Z.")
    @Nullable Instant since;

    @Override
    int run(BerthClient client) {
      Optional<SessionId> id =
          session == null ? Optional.empty() : Optional.of(session.resolveLiveOrDeleted(client));
      Table table = new Table(List.of("SEQ", "AT", "SESSION", "ACTOR", "TYPE", "DETAIL"));
      ObjectNode document = JsonMapper.builder().build().createObjectNode();
      ArrayNode array = document.putArray("events");
      long after = 0;
      while (true) {
        JsonNode page = client.audit(id, after, PAGE, Optional.ofNullable(since));
        for (JsonNode event : page.path("events")) {
          array.add(event);
          table.row(
              List.of(
                  event.path("sequence").asString(""),
                  event.path("at").asString(""),
                  event.path("session").asString("-"),
                  event.path("actor").asString(""),
                  event.path("type").asString(""),
                  event.path("detail").asString("")));
        }
        if (!page.path("nextAfter").isNumber()) {
          break;
        }
        after = page.path("nextAfter").asLong();
      }
      print(format.format, document, wide -> table.render());
      return 0;
    }
  }
}
