package dev.berth.protocol.files;

import com.sun.security.auth.module.UnixSystem;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import java.util.Set;

/**
 * The start-up check of the platform's own files: a data directory, state directory, token or
 * database is accepted only when it is owned by the user this process runs as and grants nothing to
 * group or others. Anything else is refused with a {@link NotPrivateException} that says how to fix
 * it, never repaired silently: a token others could read may already have been read, and the
 * operator has to know (rotate it, or delete it to have a new one minted).
 *
 * <p>Owner bits are not judged (a read-only token file is private too), and symbolic links are
 * followed: what counts is the file the link leads to. On a file system without POSIX permissions
 * there is nothing to check.
 */
public final class PrivacyRule {

  private static final Set<PosixFilePermission> GROUP_AND_OTHERS =
      EnumSet.complementOf(
          EnumSet.of(
              PosixFilePermission.OWNER_READ,
              PosixFilePermission.OWNER_WRITE,
              PosixFilePermission.OWNER_EXECUTE));

  private PrivacyRule() {}

  /**
   * Refuses {@code path} unless it is private to this process's user.
   *
   * @param role what the path is to Berth, for the message ("data directory", "admin token file")
   * @throws NotPrivateException when another user owns it, or group or others have any access
   * @throws UncheckedIOException when it does not exist or its attributes cannot be read
   */
  public static void requirePrivate(Path path, String role) {
    if (!PrivateFiles.isPosix(path)) {
      return;
    }
    try {
      boolean directory = Files.isDirectory(path);
      requireOwnUser(path, role, directory);
      Set<PosixFilePermission> mode = Files.getPosixFilePermissions(path);
      Set<PosixFilePermission> exposed = EnumSet.noneOf(PosixFilePermission.class);
      exposed.addAll(mode);
      exposed.retainAll(GROUP_AND_OTHERS);
      if (!exposed.isEmpty()) {
        throw new NotPrivateException(path, wrongMode(path, role, mode, directory));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot check that " + role + " " + path + " is private: " + e, e);
    }
  }

  /** As {@link #requirePrivate}, for a path that may not exist yet (then there is no check). */
  public static void requirePrivateIfExists(Path path, String role) {
    if (Files.exists(path)) {
      requirePrivate(path, role);
    }
  }

  private static void requireOwnUser(Path path, String role, boolean directory) throws IOException {
    if (!path.getFileSystem().supportedFileAttributeViews().contains("unix")) {
      return;
    }
    long owner = ((Number) Files.getAttribute(path, "unix:uid")).longValue();
    long self = new UnixSystem().getUid();
    if (owner != self) {
      String ownerName = Files.getOwner(path).getName();
      String selfName = System.getProperty("user.name", "?");
      String chownTo = selfName.equals("?") ? Long.toString(self) : selfName;
      throw new NotPrivateException(
          path,
          role
              + " "
              + path
              + " is owned by uid "
              + owner
              + " ("
              + ownerName
              + "), but Berth runs as uid "
              + self
              + " ("
              + selfName
              + ") and keeps its own files private to that user; run: chown "
              + (directory ? "-R " : "")
              + chownTo
              + " "
              + path
              + ", or start Berth as "
              + ownerName);
    }
  }

  private static String wrongMode(
      Path path, String role, Set<PosixFilePermission> mode, boolean directory) {
    String wanted = directory ? "rwx------" : "rw-------";
    return role
        + " "
        + path
        + " has mode "
        + PosixFilePermissions.toString(mode)
        + " ("
        + octal(mode)
        + "), but Berth keeps its own files private to the user it runs as: group and others"
        + " must have no access ("
        + wanted
        + "); run: chmod "
        + (directory ? "700 " : "600 ")
        + path;
  }

  /** The mode as ls and chmod write it: 0755. */
  @SuppressWarnings("EnumOrdinal") // PosixFilePermission is declared in the mode's bit order
  static String octal(Set<PosixFilePermission> mode) {
    int bits = 0;
    for (PosixFilePermission p : mode) {
      bits |= 1 << (8 - p.ordinal());
    }
    return String.format("%04o", bits);
  }
}
