package dev.berth.server.archive.filesystem;

import dev.berth.protocol.files.PrivateFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * The archive directory's store-epoch high-water mark, {@code <root>/.store-epoch}: named unlike a
 * session directory, so no listing or sweep looks at it. Raised with a temporary file, forced and
 * renamed over it. Thread-safe within the process; the directory belongs to one server.
 */
final class EpochMarkFile {

  private final Path file;

  EpochMarkFile(Path root) {
    this.file = root.resolve(".store-epoch");
  }

  synchronized long read() {
    try {
      String text = Files.readString(file, StandardCharsets.US_ASCII).strip();
      return text.isEmpty() ? 0 : Long.parseLong(text);
    } catch (NoSuchFileException e) {
      return 0;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the store epoch mark " + file, e);
    } catch (NumberFormatException e) {
      throw new IllegalStateException(
          file
              + " must hold the highest store epoch an archive was written under, a decimal"
              + " number; write the epoch GET /api/v1/admin/recovery shows into it",
          e);
    }
  }

  synchronized void raise(long epoch) {
    if (epoch <= read()) {
      return;
    }
    Path temp = file.resolveSibling(".store-epoch.tmp");
    try {
      try (FileChannel channel =
          PrivateFiles.open(
              temp,
              StandardOpenOption.CREATE,
              StandardOpenOption.WRITE,
              StandardOpenOption.TRUNCATE_EXISTING)) {
        ByteBuffer bytes = ByteBuffer.wrap((epoch + "\n").getBytes(StandardCharsets.US_ASCII));
        while (bytes.hasRemaining()) {
          channel.write(bytes);
        }
        channel.force(true);
      }
      Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot raise the store epoch mark " + file, e);
    }
  }
}
