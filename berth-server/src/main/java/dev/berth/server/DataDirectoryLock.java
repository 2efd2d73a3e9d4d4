package dev.berth.server;

import dev.berth.protocol.files.PrivateFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The exclusive lock on a data directory's {@code server.lock}: one server per data directory, so
 * that a restarted server can take its sessions' leases back at once, under the same holder name.
 */
final class DataDirectoryLock {

  private DataDirectoryLock() {}

  /**
   * Locks {@code dataDir} for this server until the returned channel is closed.
   *
   * @throws IllegalStateException when another server holds it
   */
  static FileChannel take(Path dataDir) {
    try {
      FileChannel channel =
          PrivateFiles.open(
              dataDir.resolve("server.lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
      FileLock lock;
      try {
        lock = channel.tryLock();
      } catch (OverlappingFileLockException heldInThisProcess) {
        // Another server of this same process holds it (a test's, or an embedding's).
        lock = null;
      }
      if (lock == null) {
        channel.close();
        throw new IllegalStateException(
            "another berth server runs on "
                + dataDir
                + "; stop it, or give this one another --data-dir");
      }
      return channel;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot lock " + dataDir, e);
    }
  }
}
