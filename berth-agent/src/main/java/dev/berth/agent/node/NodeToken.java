package dev.berth.agent.node;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.HexFormat;

/**
 * The bearer token shared by a node and the control plane that launches it, kept in {@code
 * node.token} (mode 0600) in the node's state directory. Whoever comes first mints it; both read
 * the same file afterwards, so a restarted node keeps the token its control plane knows.
 */
public final class NodeToken {

  public static final String FILE = "node.token";

  private NodeToken() {}

  public static String readOrCreate(Path stateDirectory) {
    Path file = stateDirectory.resolve(FILE);
    try {
      Files.createDirectories(stateDirectory);
      if (!Files.exists(file)) {
        create(file);
      }
      String token = Files.readString(file, StandardCharsets.UTF_8).strip();
      if (token.length() < 32) {
        throw new IllegalStateException(
            file + " holds a token of " + token.length() + " characters; delete it to mint anew");
      }
      return token;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read or create " + file, e);
    }
  }

  private static void create(Path file) throws IOException {
    byte[] random = new byte[32];
    new SecureRandom().nextBytes(random);
    Path temp = file.resolveSibling(FILE + "." + ProcessHandle.current().pid());
    Files.deleteIfExists(temp);
    Files.createFile(
        temp, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    Files.writeString(temp, HexFormat.of().formatHex(random), StandardCharsets.UTF_8);
    try {
      // A hard link fails if another process minted first; then its token wins.
      Files.createLink(file, temp);
    } catch (FileAlreadyExistsException raced) {
      // keep the other token
    } finally {
      Files.delete(temp);
    }
  }
}
