package dev.berth.server;

import dev.berth.protocol.files.PrivateFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.SecureRandom;
import java.util.HexFormat;

/**
 * The installation's id, minted at first start and kept in {@code installation.id}: it is written
 * into every runtime's ownership labels, so an inventory tells this installation's runtimes from
 * another's on the same node or cluster. Private to the server's user (0600), as the data
 * directory's other files.
 */
final class Installation {

  static final String FILE = "installation.id";

  private Installation() {}

  /** A new installation id, {@code berth-} and 16 random hex digits. */
  static String mint() {
    byte[] random = new byte[8];
    new SecureRandom().nextBytes(random);
    return "berth-" + HexFormat.of().formatHex(random);
  }

  static String loadOrCreate(Path dataDir) {
    Path file = dataDir.resolve(FILE);
    try {
      if (!Files.exists(file)) {
        byte[] id = mint().getBytes(StandardCharsets.UTF_8);
        try (FileChannel channel =
            PrivateFiles.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
          ByteBuffer bytes = ByteBuffer.wrap(id);
          while (bytes.hasRemaining()) {
            channel.write(bytes);
          }
        } catch (FileAlreadyExistsException raced) {
          // another start wrote it first; use that one
        }
      }
      return Files.readString(file, StandardCharsets.UTF_8).strip();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read or create " + file, e);
    }
  }
}
