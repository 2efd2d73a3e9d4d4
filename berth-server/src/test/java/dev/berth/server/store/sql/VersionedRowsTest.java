package dev.berth.server.store.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.berth.core.error.AlreadyExistsException;
import dev.berth.core.error.NotFoundException;
import dev.berth.core.error.VersionConflictException;
import dev.berth.server.store.sql.VersionedRows.Column;
import dev.berth.server.store.sql.VersionedRows.IfTaken;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shared mechanics of the versioned tables, on the {@code sessions} table with a plain-text
 * record in place of a session, so that what is checked is the SQL the helper builds.
 */
class VersionedRowsTest {

  /** A record whose body is its text. */
  private record Note(String id, String text, long version) {}

  private static final RecordBody<Note> BODY =
      new RecordBody<>(
          Note::text, (id, body) -> new Note(id, body, 0), (n, v) -> new Note(n.id, n.text, v));

  @TempDir Path dir;

  private SqliteDatabase db;
  private VersionedRows<Note> rows;

  @BeforeEach
  void open() {
    db = SqliteDatabase.open(dir.resolve("berth.db"));
    rows = new VersionedRows<>(db, "sessions", "note", BODY);
  }

  @AfterEach
  void close() {
    db.close();
  }

  private static List<Column> columns(long lastAccess) {
    return List.of(
        Column.of("tenant", "acme"),
        Column.of("phase", "REQUESTED"),
        Column.of("created_at", 1L),
        Column.atLeast("last_access", lastAccess));
  }

  private Note create(String id, String text, IfTaken ifTaken) {
    return rows.create(id, new Note(id, text, 0), columns(5), ifTaken);
  }

  private long lastAccess(long written, long expectedVersion, String text) {
    return db.write(
        "swap",
        c ->
            rows.compareAndSet(
                c,
                "n-1",
                expectedVersion,
                rows.at(new Note("n-1", text, 0), expectedVersion + 1),
                List.of(Column.atLeast("last_access", written)),
                "last_access",
                rs -> rs.getLong(1)));
  }

  @Test
  void aCreateStoresTheRecordAtVersionOne() {
    assertThat(create("n-1", "first", IfTaken.FAIL)).isEqualTo(new Note("n-1", "first", 1));

    assertThat(rows.get("n-1")).contains(new Note("n-1", "first", 1));
  }

  @Test
  void aCreateOfATakenIdFailsOrAnswersTheStoredRecordAsAskedAndChangesNothing() {
    create("n-1", "first", IfTaken.FAIL);

    assertThatThrownBy(() -> create("n-1", "second", IfTaken.FAIL))
        .isInstanceOf(AlreadyExistsException.class)
        .hasMessageContaining("note n-1");
    assertThat(create("n-1", "third", IfTaken.KEEP_EXISTING))
        .isEqualTo(new Note("n-1", "first", 1));
    assertThat(rows.get("n-1")).contains(new Note("n-1", "first", 1));
  }

  @Test
  void aCompareAndSetAtTheStoredVersionBumpsItAndKeepsTheGreaterOfAnAtLeastColumn() {
    create("n-1", "first", IfTaken.FAIL);

    assertThat(lastAccess(3, 1, "second")).isEqualTo(5);
    assertThat(lastAccess(9, 2, "third")).isEqualTo(9);
    assertThat(rows.get("n-1")).contains(new Note("n-1", "third", 3));
  }

  @Test
  void aCompareAndSetAtAnotherVersionFailsNamingBothVersionsAndChangesNothing() {
    create("n-1", "first", IfTaken.FAIL);

    assertThatThrownBy(() -> lastAccess(9, 7, "second"))
        .isInstanceOf(VersionConflictException.class)
        .hasMessageContaining("note n-1")
        .hasMessageContaining("expected version 7")
        .hasMessageContaining("holds version 1");
    assertThat(rows.get("n-1")).contains(new Note("n-1", "first", 1));
  }

  @Test
  void aCompareAndSetOfAMissingRowFailsAsNotFound() {
    assertThatThrownBy(() -> lastAccess(9, 1, "second"))
        .isInstanceOf(NotFoundException.class)
        .hasMessageContaining("note n-1");
  }
}
