package dev.berth.cli;

import dev.berth.client.SessionView;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/** Sessions as a table: ID, NAME, TYPE, STATE, RUNTIME, AGE. */
final class SessionPrinter {

  static final List<String> HEADERS = List.of("ID", "NAME", "TYPE", "STATE", "RUNTIME", "AGE");

  /** What {@code -o wide} adds: whose it is, its intent, and when it was last used or kept. */
  static final List<String> WIDE_HEADERS =
      List.of("TENANT", "INTENT", "LAST ACCESS", "KEPT UNTIL", "OPERATION");

  private SessionPrinter() {}

  static String table(List<SessionView> sessions, Instant now) {
    return table(sessions, now, false);
  }

  static String table(List<SessionView> sessions, Instant now, boolean wide) {
    List<String> headers = new java.util.ArrayList<>(HEADERS);
    if (wide) {
      headers.addAll(WIDE_HEADERS);
    }
    Table table = new Table(headers);
    for (SessionView s : sessions) {
      List<String> row =
          new java.util.ArrayList<>(
              List.of(
                  s.id().value(),
                  s.name(),
                  s.workloadType(),
                  state(s),
                  s.runtimeName().orElse("-"),
                  age(s.createdAt(), now)));
      if (wide) {
        row.addAll(wideCells(s, now));
      }
      table.row(row);
    }
    return table.render();
  }

  private static List<String> wideCells(SessionView s, Instant now) {
    return List.of(
        s.tenant().orElse("-"),
        s.intent().flatMap(SessionView.Intent::desired).orElse("-")
            + s.intentVersion().stream().mapToObj(v -> " v" + v).findFirst().orElse(""),
        age(s.lastAccess(), now) + (s.lastAccess().isPresent() ? " ago" : ""),
        s.activity()
            .flatMap(SessionView.Activity::keepAliveUntil)
            .map(Instant::toString)
            .orElse("-"),
        s.operation().orElse("-"));
  }

  /**
   * The original's state, with the phase beside it where it says more: {@code snapshot
   * (restoring)}.
   */
  static String state(SessionView s) {
    return s.lifecycle().equals(s.state()) ? s.state() : s.state() + " (" + s.lifecycle() + ")";
  }

  /**
   * The session's last archive, under its table row: generation, size, and every entry the archive
   * left out with the reason, so that nothing is dropped without the user knowing. Empty without an
   * archive.
   */
  static String archive(SessionView s) {
    if (s.archive().isEmpty()) {
      return "";
    }
    tools.jackson.databind.JsonNode a = s.archive().get();
    StringBuilder text =
        new StringBuilder("archive: generation ")
            .append(a.path("generation").asLong())
            .append(", ")
            .append(a.path("sizeBytes").asLong())
            .append(" bytes");
    tools.jackson.databind.JsonNode skipped = a.path("skipped");
    if (!skipped.isArray() || skipped.isEmpty()) {
      return text.append(", nothing left out\n").toString();
    }
    text.append("; left out of it:\n");
    for (tools.jackson.databind.JsonNode entry : skipped) {
      text.append("  ")
          .append(Escape.cell(entry.path("path").asString()))
          .append(" (")
          .append(Escape.cell(entry.path("reason").asString()))
          .append(")\n");
    }
    return text.toString();
  }

  /** How long ago, in its largest unit: {@code 42s}, {@code 5m}, {@code 3h}, {@code 12d}. */
  static String age(Optional<Instant> since, Instant now) {
    if (since.isEmpty()) {
      return "-";
    }
    Duration age = Duration.between(since.get(), now);
    if (age.isNegative()) {
      return "0s";
    }
    if (age.toSeconds() < 60) {
      return age.toSeconds() + "s";
    }
    if (age.toMinutes() < 60) {
      return age.toMinutes() + "m";
    }
    if (age.toHours() < 48) {
      return age.toHours() + "h";
    }
    return age.toDays() + "d";
  }
}
