package dev.berth.cli;

import dev.berth.client.SessionView;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/** Sessions as a table: ID, NAME, TYPE, STATE, RUNTIME, AGE. */
final class SessionPrinter {

  static final List<String> HEADERS = List.of("ID", "NAME", "TYPE", "STATE", "RUNTIME", "AGE");

  private SessionPrinter() {}

  static String table(List<SessionView> sessions, Instant now) {
    Table table = new Table(HEADERS);
    for (SessionView s : sessions) {
      table.row(
          List.of(
              s.id().value(),
              s.name(),
              s.workloadType(),
              s.state(),
              s.runtimeName().orElse("-"),
              age(s.createdAt(), now)));
    }
    return table.render();
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
