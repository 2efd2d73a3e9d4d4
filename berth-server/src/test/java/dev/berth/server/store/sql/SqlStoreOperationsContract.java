package dev.berth.server.store.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.berth.core.session.DesiredState;
import dev.berth.core.session.Phase;
import dev.berth.core.session.Reservation;
import dev.berth.core.session.Session;
import dev.berth.core.session.TenantId;
import dev.berth.core.session.WorkloadType;
import dev.berth.core.testing.MutableClock;
import dev.berth.core.testing.TestSessions;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What operators read of the store, on each engine: the grouped counts the metrics read once per
 * scrape ({@code berth_sessions}, {@code berth_reservations}; the reservation is read from the JSON
 * body, whose SQL differs between them) and the schema check of {@code /readyz}.
 */
abstract class SqlStoreOperationsContract {

  protected abstract SqlSessionStore open(MutableClock clock);

  private final MutableClock clock = new MutableClock(Instant.parse("2026-12-03T10:00:00Z"));
  private SqlSessionStore store;

  @BeforeEach
  void openStore() {
    store = open(clock);
  }

  @AfterEach
  void closeStore() {
    store.close();
  }

  @Test
  void countsTheSessionsNotDeletedByPhaseAndByReservation() {
    Instant now = clock.instant();
    store.create(TestSessions.ready(now));
    store.create(TestSessions.ready(now));
    store.create(TestSessions.ready(now).runtimeUnreachable(now, "the node stopped answering"));
    store.create(TestSessions.requested(now));
    store.create(
        TestSessions.requested(now).withIntent(DesiredState.TERMINATED, now, "test", "deleted"));

    assertThat(store.countByPhase()).isEqualTo(Map.of(Phase.READY, 3L, Phase.REQUESTED, 1L));
    assertThat(store.countByReservation())
        .isEqualTo(Map.of(Reservation.HELD, 3L, Reservation.UNCERTAIN, 1L));
  }

  @Test
  void oneUnusualBodyNeitherBreaksNorSkewsTheOtherCounts() {
    Instant now = clock.instant();
    store.create(TestSessions.ready(now));
    // A tenant chooses the name: PostgreSQL's jsonb refuses the \u0000 escape JSON writes for it.
    store.create(
        Session.request(
            TestSessions.newId(),
            new TenantId("acme"),
            "nul\u0000name",
            WorkloadType.SHELL,
            now,
            "tester"));
    Session corrupt = store.create(TestSessions.ready(now));
    store
        .database()
        .write(
            "corrupt a body",
            c ->
                SqlDatabase.update(
                    c, "UPDATE sessions SET body = 'not json' WHERE id = ?", corrupt.id().value()));

    assertThat(store.countByReservation()).isEqualTo(Map.of(Reservation.HELD, 2L));
  }

  @Test
  void theSchemaCheckPassesOnTheSchemaThisServerMigratedTo() {
    store.checkMigrated();
  }

  @Test
  void theSchemaCheckNamesBothVersionsWhenANewerReleaseMigratedTheStoreFurther() {
    String known = store.database().schemaVersion().getVersion();
    // A dotted version: compared as Flyway compares versions, not as text or as an integer.
    String newer = known + ".1";
    history(
        "UPDATE flyway_schema_history SET version = '"
            + newer
            + "' WHERE version = '"
            + known
            + "'");

    assertThatThrownBy(store::checkMigrated)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("schema version " + newer + ", newer than this server's " + known)
        .hasMessageContaining("upgrade this server");
  }

  @Test
  void theSchemaCheckNamesBothVersionsWhenTheStoreIsBehind() {
    String known = store.database().schemaVersion().getVersion();
    history("DELETE FROM flyway_schema_history WHERE version = '" + known + "'");

    assertThatThrownBy(store::checkMigrated)
        .hasMessageContaining(
            "schema version "
                + (Integer.parseInt(known) - 1)
                + ", older than this server's "
                + known);
  }

  /** Rewrites Flyway's history as another release, or a restored backup, would leave it. */
  private void history(String sql) {
    store.database().write("rewrite the schema history", c -> SqlDatabase.update(c, sql));
  }

  @Test
  void countsNothingInAnEmptyStore() {
    assertThat(store.countByPhase()).isEmpty();
    assertThat(store.countByReservation()).isEmpty();
  }
}
