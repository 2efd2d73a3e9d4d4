package dev.berth.server.store.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.berth.core.error.InvalidValueException;
import dev.berth.core.execution.Execution;
import dev.berth.core.execution.ExecutionId;
import dev.berth.core.execution.ExecutionKind;
import dev.berth.core.operation.Operation;
import dev.berth.core.operation.OperationId;
import dev.berth.core.operation.OperationType;
import dev.berth.core.session.Session;
import dev.berth.core.session.SessionId;
import dev.berth.core.store.AuditEvent;
import dev.berth.core.store.Lease;
import dev.berth.core.store.SessionQuery;
import dev.berth.core.testing.MutableClock;
import dev.berth.core.testing.TestSessions;
import dev.berth.store.CorruptRecordException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What the SQLite store does with its file: schema, journal mode, reopening, corrupt rows. */
class SqliteSessionStoreFileTest {
  private static final Duration TTL = Duration.ofSeconds(60);

  @TempDir Path dir;

  private final MutableClock clock = MutableClock.at("2026-11-29T10:00:00.123456789Z");

  private Path file() {
    return dir.resolve("state").resolve("berth.db");
  }

  @Test
  void migratesAtOpenAndASecondOpenOfTheSameFileKeepsEverything() throws Exception {
    Session session = TestSessions.everyField(clock.instant());
    Operation op;
    Execution execution;
    Lease lease;
    AuditEvent event;
    try (SqlSessionStore store = SqlSessionStore.openSqlite(file(), clock)) {
      store.create(session);
      store.touch(session.id(), clock.instant().plusSeconds(3600));
      op =
          store.createOperation(
              Operation.pending(
                  OperationId.of(session.id(), OperationType.TERMINATE, 4),
                  session.id(),
                  OperationType.TERMINATE,
                  4,
                  clock.instant(),
                  clock.instant().plusSeconds(600)));
      execution =
          store.createExecution(
              Execution.queued(
                  ExecutionId.generate(new SplittableRandom(3)),
                  session.id(),
                  ExecutionKind.PROMPT,
                  "summarize",
                  4,
                  Optional.empty(),
                  clock.instant()));
      lease = store.acquire(session.id(), "node-a", TTL).orElseThrow();
      event =
          store.append(
              AuditEvent.of(
                  session.id(), clock.instant(), "tester", "session.test", "before reopen"));
    }
    assertThat(appliedMigrations())
        .containsExactly("1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13");

    try (SqlSessionStore reopened = SqlSessionStore.openSqlite(file(), clock)) {
      assertThat(appliedMigrations())
          .containsExactly("1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13");
      assertThat(reopened.get(session.id()))
          .contains(session.touched(clock.instant().plusSeconds(3600)).withVersion(1));
      assertThat(reopened.listOperations(session.id())).containsExactly(op);
      assertThat(reopened.listExecutions(session.id())).containsExactly(execution);
      assertThat(reopened.current(session.id())).contains(lease);
      assertThat(reopened.acquire(session.id(), "node-b", TTL)).isEmpty();
      assertThat(reopened.events(session.id(), 0, 10)).containsExactly(event);
    }
  }

  @Test
  void createsTheParentDirectoriesAndRunsTheFileInWalMode() throws Exception {
    try (SqlSessionStore store = SqlSessionStore.openSqlite(file(), clock)) {
      assertThat(store.describe()).isEqualTo("sqlite store " + file().toAbsolutePath());
      assertThat(Files.isRegularFile(file())).isTrue();
      try (Connection c = connect();
          Statement s = c.createStatement();
          ResultSet rs = s.executeQuery("PRAGMA journal_mode")) {
        assertThat(rs.next()).isTrue();
        assertThat(rs.getString(1)).isEqualTo("wal");
      }
    }
  }

  @Test
  void theDatabaseItsWalAndShmFilesAndItsDirectoryArePrivateToTheServerUser() throws Exception {
    try (SqlSessionStore store = SqlSessionStore.openSqlite(file(), clock)) {
      store.create(TestSessions.requested(clock.instant()));

      assertThat(mode(file().getParent())).isEqualTo("rwx------");
      for (String suffix : List.of("", "-wal", "-shm")) {
        Path each = file().resolveSibling("berth.db" + suffix);
        assertThat(each).as("SQLite keeps it while open").exists();
        assertThat(mode(each)).as(each.getFileName().toString()).isEqualTo("rw-------");
      }
    }
  }

  @Test
  void aDatabaseFileLeftWiderByAnOlderVersionIsMadePrivateAtOpen() throws Exception {
    SqlSessionStore.openSqlite(file(), clock).close();
    Files.setPosixFilePermissions(file(), PosixFilePermissions.fromString("rw-r--r--"));

    SqlSessionStore.openSqlite(file(), clock).close();

    assertThat(mode(file())).isEqualTo("rw-------");
  }

  private static String mode(Path path) throws java.io.IOException {
    return PosixFilePermissions.toString(Files.getPosixFilePermissions(path));
  }

  @Test
  void storesABodyOfFormatTwoWithTheIdsAsPlainStrings() throws Exception {
    try (SqlSessionStore store = SqlSessionStore.openSqlite(file(), clock)) {
      Session s = store.create(TestSessions.requested(clock.instant()));
      assertThat(body(s.id()))
          .startsWith("{\"format\":3,")
          .contains(
              "\"id\":\"" + s.id().value() + "\"",
              "\"tenant\":\"acme\"",
              "\"createdAt\":\"2026-11-29T10:00:00.123456789Z\"");
    }
  }

  @Test
  void aCorruptSessionBodyFailsWithAnErrorNamingTheSession() throws Exception {
    try (SqlSessionStore store = SqlSessionStore.openSqlite(file(), clock)) {
      SessionId id = store.create(TestSessions.requested(clock.instant())).id();
      setBody(id, "{\"format\":1,\"id\":");
      assertThatThrownBy(() -> store.get(id))
          .isInstanceOf(CorruptRecordException.class)
          .hasMessageContaining("session " + id.value())
          .hasMessageContaining("invalid JSON");
      assertThatThrownBy(() -> store.list(SessionQuery.all(10)))
          .isInstanceOf(CorruptRecordException.class)
          .hasMessageContaining(id.value());
    }
  }

  @Test
  void anUnknownPhaseInAStoredBodyFailsWithAnErrorNamingTheSessionAndTheValue() throws Exception {
    try (SqlSessionStore store = SqlSessionStore.openSqlite(file(), clock)) {
      SessionId id = store.create(TestSessions.requested(clock.instant())).id();
      setBody(id, body(id).replace("\"REQUESTED\"", "\"HIBERNATING\""));
      assertThatThrownBy(() -> store.get(id))
          .isInstanceOf(CorruptRecordException.class)
          .hasMessageContaining("session " + id.value())
          .hasMessageContaining("HIBERNATING");
    }
  }

  @Test
  void twoStoresSharingTheFileLetExactlyOneWriterWinEachRace() throws Exception {
    try (SqlSessionStore a = SqlSessionStore.openSqlite(file(), clock);
        SqlSessionStore b = SqlSessionStore.openSqlite(file(), clock)) {
      TwoStoreRace.oneWriterAndOneLeaseHolderWinEachRound(a, b, clock, TTL);
    }
  }

  @Test
  void theDeletedColumnMatchesWhatV6ReadsFromAStoredBodyToBackfillIt() throws Exception {
    Session session = TestSessions.everyField(clock.instant());
    try (SqlSessionStore store = SqlSessionStore.openSqlite(file(), clock)) {
      Session stored = store.create(session);
      store.compareAndSet(
          stored.withIntent(
              dev.berth.core.session.DesiredState.TERMINATED, clock.instant(), "t", "deleted"),
          stored.version());
    }
    try (Connection c = connect();
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT deleted, json_extract(body, '$.intent.desired') = 'TERMINATED'"
                    + " FROM sessions")) {
      assertThat(rs.next()).isTrue();
      assertThat(rs.getInt(1)).isEqualTo(1);
      assertThat(rs.getInt(2)).as("the backfill's test of a body").isEqualTo(1);
    }
  }

  @Test
  void rejectsAPageTokenItDidNotIssue() {
    try (SqlSessionStore store = SqlSessionStore.openSqlite(file(), clock)) {
      assertThatThrownBy(() -> store.list(SessionQuery.all(10).after("not-a-token")))
          .isInstanceOf(InvalidValueException.class)
          .hasMessageContaining("not-a-token");
    }
  }

  @Test
  void closeIsIdempotentAndLaterCallsFailNamingTheFile() {
    SqlSessionStore store = SqlSessionStore.openSqlite(file(), clock);
    store.close();
    store.close();
    assertThatThrownBy(() -> store.get(TestSessions.newId()))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining(file().toString())
        .hasMessageContaining("closed");
  }

  private Connection connect() throws SQLException {
    return DriverManager.getConnection("jdbc:sqlite:" + file());
  }

  private List<String> appliedMigrations() throws SQLException {
    try (Connection c = connect();
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT version FROM flyway_schema_history WHERE success = 1 AND version IS NOT NULL"
                    + " ORDER BY installed_rank")) {
      List<String> versions = new ArrayList<>();
      while (rs.next()) {
        versions.add(rs.getString(1));
      }
      return versions;
    }
  }

  private String body(SessionId id) throws SQLException {
    try (Connection c = connect();
        PreparedStatement ps = c.prepareStatement("SELECT body FROM sessions WHERE id = ?")) {
      ps.setString(1, id.value());
      try (ResultSet rs = ps.executeQuery()) {
        assertThat(rs.next()).as("row of session %s", id).isTrue();
        return rs.getString(1);
      }
    }
  }

  private void setBody(SessionId id, String body) throws SQLException {
    try (Connection c = connect();
        PreparedStatement ps = c.prepareStatement("UPDATE sessions SET body = ? WHERE id = ?")) {
      ps.setString(1, body);
      ps.setString(2, id.value());
      assertThat(ps.executeUpdate()).isEqualTo(1);
    }
  }
}
