package dev.berth.server.store.sqlite;

import dev.berth.core.store.SessionStore;
import dev.berth.core.store.SessionStoreContract;
import dev.berth.core.testing.MutableClock;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** The SQLite store passes the store contract, each test on a fresh database file. */
class SqliteSessionStoreTest extends SessionStoreContract {
  private Path dir;

  @Override
  protected SessionStore newStore(MutableClock clock) throws IOException {
    dir = Files.createTempDirectory("berth-sqlite-contract");
    return SqliteSessionStore.open(dir.resolve("berth.db"), clock);
  }

  @Override
  protected void closeStore(SessionStore s) throws IOException {
    ((SqliteSessionStore) s).close();
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }
}
