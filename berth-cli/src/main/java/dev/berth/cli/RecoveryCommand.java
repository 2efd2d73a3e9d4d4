package dev.berth.cli;

import dev.berth.client.BerthClient;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import tools.jackson.databind.JsonNode;

/**
 * {@code berth admin recovery [approve]}: recovery mode after a restore of an older store backup
 * (docs/operations.md, "Restoring a store backup").
 */
@Command(
    name = "recovery",
    mixinStandardHelpOptions = true,
    versionProvider = BerthCommand.Version.class,
    description =
        "Shows whether the control plane is in recovery mode (its store older than what the"
            + " runtimes or archives saw) and what it found: adopted sessions, quarantined runtimes"
            + " and archives.",
    subcommands = RecoveryCommand.Approve.class)
final class RecoveryCommand extends ClientCommand {
  @Mixin FormatOption format;

  @Override
  int run(BerthClient client) {
    JsonNode found = client.recovery();
    print(format.format, found, wide -> text(found));
    return 0;
  }

  /** {@code berth admin recovery approve}. */
  @Command(
      name = "approve",
      mixinStandardHelpOptions = true,
      versionProvider = BerthCommand.Version.class,
      description =
          "Ends recovery mode once you have read what it found: admission opens and the"
              + " reconcilers act again; quarantined runtimes and archives stay. Audited.")
  static final class Approve extends ClientCommand {
    @Mixin FormatOption format;

    @Override
    int run(BerthClient client) {
      JsonNode approved = client.approveRecovery();
      print(format.format, approved, wide -> "recovery mode ended\n" + text(approved));
      return 0;
    }
  }

  /** The findings as lines: state, epochs, then each list. */
  static String text(JsonNode f) {
    StringBuilder out = new StringBuilder();
    boolean active = f.path("active").asBoolean(false);
    out.append("recovery mode: ").append(active ? "ON" : "off");
    if (f.has("since")) {
      out.append(" (since ").append(Escape.cell(f.path("since").asString())).append(')');
    }
    out.append('\n');
    if (f.has("reason")) {
      out.append("reason: ").append(Escape.cell(f.path("reason").asString())).append('\n');
    }
    out.append("store epoch: ").append(f.path("storeEpoch").asLong()).append('\n');
    for (JsonNode mark : f.path("highWaterMarks")) {
      out.append("  ")
          .append(Escape.cell(mark.path("source").asString()))
          .append(" saw epoch ")
          .append(mark.path("epoch").asLong())
          .append('\n');
    }
    list(out, "adopted sessions", f.path("adoptedSessions"));
    list(out, "quarantined runtimes", f.path("quarantinedRuntimes"));
    list(out, "quarantined archives", f.path("quarantinedArchives"));
    list(out, "unreachable sessions", f.path("unreachableSessions"));
    if (f.has("approvedBy")) {
      out.append("approved by ")
          .append(Escape.cell(f.path("approvedBy").asString()))
          .append(" at ")
          .append(Escape.cell(f.path("approvedAt").asString()))
          .append('\n');
    }
    if (active) {
      out.append("end it with: berth admin recovery approve\n");
    }
    return out.toString();
  }

  private static void list(StringBuilder out, String title, JsonNode items) {
    out.append(title).append(": ").append(items.size()).append('\n');
    for (JsonNode item : items) {
      out.append("  ").append(Escape.cell(item.asString())).append('\n');
    }
  }
}
