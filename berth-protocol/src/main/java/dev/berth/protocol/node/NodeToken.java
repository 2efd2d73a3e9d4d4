package dev.berth.protocol.node;

import dev.berth.protocol.files.PrivacyRule;
import dev.berth.protocol.files.PrivateFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.HexFormat;

/**
 * The bearer token shared by a node and the control plane that launches it, kept in {@code
 * node.token} (mode 0600) in the node's state directory. Whoever comes first mints it; both read
 * the same file afterwards, so a restarted node keeps the token its control plane knows. A token
 * file that others may reach is refused (see {@link PrivacyRule}), on both sides.
 */
public final class NodeToken {

  public static final String FILE = "node.token";

  /** What the file is called in messages. */
  public static final String ROLE = "node token file";

  /**
   * The node's second token, in {@code metrics.token}: it reads the node's meters ({@code GET
   * /metrics}) and nothing else, so that a scraper holds no token that controls sessions.
   */
  public static final String METRICS_FILE = "metrics.token";

  /** What the metrics token's file is called in messages. */
  public static final String METRICS_ROLE = "node metrics token file";

  private NodeToken() {}

  /**
   * The token in {@code stateDirectory}, minted first (0600, in a directory created 0700) when
   * there is none.
   *
   * @throws dev.berth.protocol.files.NotPrivateException when the file is owned by another user or
   *     open to group or others
   */
  public static String readOrCreate(Path stateDirectory) {
    return readOrCreate(stateDirectory, FILE, ROLE);
  }

  /**
   * The metrics token ({@link #METRICS_FILE}) in {@code stateDirectory}, minted first as the node
   * token is.
   */
  public static String readOrCreateMetrics(Path stateDirectory) {
    return readOrCreate(stateDirectory, METRICS_FILE, METRICS_ROLE);
  }

  private static String readOrCreate(Path stateDirectory, String name, String role) {
    Path file = stateDirectory.resolve(name);
    try {
      PrivateFiles.createDirectories(stateDirectory);
      if (!Files.exists(file)) {
        create(file);
      }
      PrivacyRule.requirePrivate(file, role);
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
    Path temp = file.resolveSibling(file.getFileName() + "." + ProcessHandle.current().pid());
    PrivateFiles.write(temp, HexFormat.of().formatHex(random).getBytes(StandardCharsets.UTF_8));
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
