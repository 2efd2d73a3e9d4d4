package dev.berth.server.archive.filesystem;

import dev.berth.core.archive.ArchiveStore;
import dev.berth.core.archive.ArchiveStoreContract;
import dev.berth.core.testing.MutableClock;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;

/**
 * The filesystem archive store passes the archive contract, each test in a fresh directory that
 * JUnit deletes after the test.
 */
class FilesystemArchiveStoreTest extends ArchiveStoreContract {
  @TempDir Path dir;

  private Path root() {
    return dir.resolve("archives");
  }

  @Override
  protected ArchiveStore newStore(MutableClock clock) {
    return new FilesystemArchiveStore(root(), clock);
  }

  @Override
  protected ArchiveStore restartStore(MutableClock clock) {
    return new FilesystemArchiveStore(root(), clock);
  }

  @Override
  protected long leftovers() throws IOException {
    try (Stream<Path> files = Files.walk(root())) {
      return files
          .filter(f -> f.getFileName().toString().startsWith(FilesystemArchiveStore.TEMP_PREFIX))
          .count();
    }
  }
}
