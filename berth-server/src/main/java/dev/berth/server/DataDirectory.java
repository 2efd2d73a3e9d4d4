package dev.berth.server;

import dev.berth.protocol.files.PrivacyRule;
import dev.berth.protocol.files.PrivateFiles;
import dev.berth.protocol.node.NodeFiles;
import dev.berth.protocol.node.NodeToken;
import dev.berth.server.auth.AdminToken;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;

/**
 * The server's data directory (issue 11, "Files of the platform are private"): created with mode
 * 0700 when missing, and checked at every start, before anything is read from or written to it. The
 * directory itself, and those of its secrets that exist (the admin token, the database with its
 * {@code -wal} and {@code -shm} files, the node's state directory and token), must be owned by the
 * server's user and closed to group and others; otherwise the start is refused with the fix. Every
 * other file in it is private because the components create it so, and because nobody else can
 * enter the directory.
 */
final class DataDirectory {

  /** The database file's name in the data directory. */
  static final String DATABASE = "berth.db";

  /** The node's state directory in the data directory. */
  static final String NODE = "node";

  /** What is checked when present, beside the directory itself, and its name in messages. */
  private record Guarded(Path relative, String role) {}

  private static final List<Guarded> GUARDED =
      List.of(
          new Guarded(Path.of(AdminToken.FILE_NAME), "admin token file"),
          new Guarded(Path.of(DATABASE), "database file"),
          new Guarded(Path.of(DATABASE + "-wal"), "database file"),
          new Guarded(Path.of(DATABASE + "-shm"), "database file"),
          new Guarded(Path.of(NODE), NodeFiles.STATE_DIRECTORY),
          new Guarded(Path.of(NODE, NodeToken.FILE), NodeToken.ROLE));

  private DataDirectory() {}

  /**
   * Creates {@code dataDir} (0700) when missing and refuses it, or a secret in it, when it is not
   * private.
   *
   * @throws dev.berth.protocol.files.NotPrivateException naming the path, its mode or owner, and
   *     the chmod or chown that fixes it
   * @throws UncheckedIOException when the directory cannot be created or examined
   */
  static void prepare(Path dataDir) {
    try {
      PrivateFiles.createDirectories(dataDir);
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot create the data directory "
              + dataDir
              + ": "
              + e
              + "; create it (mkdir -m 700) or give --data-dir another directory",
          e);
    }
    PrivacyRule.requirePrivate(dataDir, "data directory");
    for (Guarded guarded : GUARDED) {
      PrivacyRule.requirePrivateIfExists(dataDir.resolve(guarded.relative()), guarded.role());
    }
  }
}
