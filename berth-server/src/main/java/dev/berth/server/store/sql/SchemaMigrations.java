package dev.berth.server.store.sql;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.Optional;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.FlywayException;
import org.flywaydb.core.api.MigrationInfo;

/**
 * The schema's migrations (Flyway), shared by both engines: run at open, and checked again for
 * readiness, since a replica of a newer release sharing the store may migrate it further than this
 * server's code knows (Flyway ignores such "future" migrations at start, so this server would run
 * on a schema it was not written for).
 */
final class SchemaMigrations {

  private SchemaMigrations() {}

  /**
   * Migrates the database to the newest schema this build has and returns that version.
   *
   * @throws FlywayException when a migration fails
   */
  static int migrate(DataSource pool, String location) {
    Flyway flyway =
        Flyway.configure().dataSource(pool).locations(location).failOnMissingLocations(true).load();
    flyway.migrate();
    return Arrays.stream(flyway.info().all())
        .filter(m -> m.getState().isResolved() && m.getVersion() != null)
        .map(MigrationInfo::getVersion)
        .mapToInt(v -> Integer.parseInt(v.getVersion()))
        .max()
        .orElse(0);
  }

  /** The newest schema version applied to the database, from Flyway's history table. */
  static Optional<Integer> applied(Connection c) throws SQLException {
    return SqlDatabase.queryList(
            c,
            "SELECT version FROM flyway_schema_history WHERE success AND version IS NOT NULL",
            r -> r.getString(1))
        .stream()
        .map(Integer::parseInt)
        .max(Integer::compare);
  }

  /**
   * Checks that the database is at {@code known}, the version this server migrated it to.
   *
   * @throws IllegalStateException naming both versions and what to do when it is not
   */
  static void check(Connection c, int known, String describe) throws SQLException {
    int applied = applied(c).orElse(0);
    if (applied > known) {
      throw new IllegalStateException(
          describe
              + " has schema version "
              + applied
              + ", newer than this server's "
              + known
              + ": a newer release migrated it; upgrade this server to the same release");
    }
    if (applied < known) {
      throw new IllegalStateException(
          describe
              + " has schema version "
              + applied
              + ", older than this server's "
              + known
              + " (was it restored from a backup?); restart the server to migrate it");
    }
  }
}
