package dev.berth.server.store.sql;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.Optional;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.FlywayException;
import org.flywaydb.core.api.MigrationInfo;
import org.flywaydb.core.api.MigrationVersion;

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
  static MigrationVersion migrate(DataSource pool, String location) {
    Flyway flyway =
        Flyway.configure().dataSource(pool).locations(location).failOnMissingLocations(true).load();
    flyway.migrate();
    return Arrays.stream(flyway.info().all())
        .filter(m -> m.getState().isResolved() && m.getVersion() != null)
        .map(MigrationInfo::getVersion)
        .max(MigrationVersion::compareTo)
        .orElse(MigrationVersion.EMPTY);
  }

  /**
   * The newest schema version applied to the database, from Flyway's history table (compared as
   * Flyway compares them: {@code 10} after {@code 9}, {@code 9.1} after {@code 9}).
   */
  static Optional<MigrationVersion> applied(Connection c) throws SQLException {
    return SqlDatabase.queryList(
            c,
            "SELECT version FROM flyway_schema_history WHERE success AND version IS NOT NULL",
            r -> MigrationVersion.fromVersion(r.getString(1)))
        .stream()
        .max(MigrationVersion::compareTo);
  }

  /**
   * Checks that the database is at {@code known}, the version this server migrated it to.
   *
   * @throws IllegalStateException naming both versions and what to do when it is not
   */
  static void check(Connection c, MigrationVersion known, String describe) throws SQLException {
    MigrationVersion applied = applied(c).orElse(MigrationVersion.EMPTY);
    if (applied.compareTo(known) > 0) {
      throw new IllegalStateException(
          describe
              + " has schema version "
              + text(applied)
              + ", newer than this server's "
              + text(known)
              + ": a newer release migrated it; upgrade this server to the same release (in a"
              + " rolling upgrade, the older replicas are unready from the first newer one's"
              + " start: replace them promptly)");
    }
    if (applied.compareTo(known) < 0) {
      throw new IllegalStateException(
          describe
              + " has schema version "
              + text(applied)
              + ", older than this server's "
              + text(known)
              + " (was it restored from a backup?); restart the server to migrate it");
    }
  }

  private static String text(MigrationVersion version) {
    String text = version.getVersion();
    return text == null ? "none" : text;
  }
}
