package dev.berth.agent.contract;

import dev.berth.protocol.files.PrivateFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * The highest store epoch this host saw on a control plane's request ({@code X-Berth-Store-Epoch}),
 * kept in {@code <root>/store-epoch} beside the sessions' contract records and written as they are
 * (a temporary file, forced, renamed over the record, the directory forced). A control plane whose
 * store reads a lower epoch was restored from an older backup, and enters recovery mode when it
 * reads this mark (docs/agent-protocol.md).
 *
 * <p>The mark only grows. It is written before the request that carried a higher epoch is served,
 * so a command this host acted on is never above the mark it reports. Thread-safe.
 */
public final class StoreEpochMark {

  static final String NAME = "store-epoch";

  private final Path directory;
  private final Path file;
  private long highest;

  private StoreEpochMark(Path directory, long highest) {
    this.directory = directory;
    this.file = directory.resolve(NAME);
    this.highest = highest;
  }

  /**
   * The mark kept under {@code root}: 0 when none was written yet.
   *
   * @throws IllegalStateException when the file is not a decimal number
   */
  public static StoreEpochMark open(Path root) {
    Path file = root.resolve(NAME);
    try {
      String text = Files.readString(file, StandardCharsets.US_ASCII).strip();
      try {
        return new StoreEpochMark(root, Long.parseLong(text));
      } catch (NumberFormatException e) {
        throw new IllegalStateException(
            file
                + " must hold the highest store epoch seen, a decimal number, but holds \""
                + text
                + "\"; write the highest epoch the control plane's GET /admin/recovery shows, or"
                + " remove it only if no control plane's store was restored since (the next"
                + " request writes it again)",
            e);
      }
    } catch (NoSuchFileException e) {
      return new StoreEpochMark(root, 0);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
  }

  /** The highest epoch seen; 0 when none was. */
  public synchronized long highest() {
    return highest;
  }

  /** Records {@code epoch} when it is above the highest seen, durably, before it returns. */
  public synchronized void observe(long epoch) {
    if (epoch <= highest) {
      return;
    }
    write(epoch);
    highest = epoch;
  }

  private void write(long epoch) {
    try {
      PrivateFiles.createDirectories(directory);
      Path temp = directory.resolve(NAME + ".tmp");
      try (var channel =
          PrivateFiles.open(
              temp,
              StandardOpenOption.CREATE,
              StandardOpenOption.WRITE,
              StandardOpenOption.TRUNCATE_EXISTING)) {
        var buffer = ByteBuffer.wrap((epoch + "\n").getBytes(StandardCharsets.US_ASCII));
        while (buffer.hasRemaining()) {
          channel.write(buffer);
        }
        channel.force(true);
      }
      try {
        Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE);
      } catch (AtomicMoveNotSupportedException e) {
        throw new IOException(
            "the file system of " + directory + " cannot rename atomically; put the root on one",
            e);
      }
      try (var dir = FileChannel.open(directory, StandardOpenOption.READ)) {
        dir.force(true);
      } catch (IOException e) {
        // Some platforms cannot open a directory; the rename is as durable as they make it.
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot record store epoch " + epoch + " in " + file, e);
    }
  }
}
