package dev.berth.protocol.files;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/**
 * Creates directories (0700) and files (0600) that only their owner may reach. The mode is given to
 * the system call that creates them, so there is no moment in which the umask's wider mode applies;
 * a file that exists already keeps its mode (the start-up check, {@link PrivacyRule}, judges
 * those). On a file system without POSIX permissions the files are created plainly.
 */
public final class PrivateFiles {

  /** The mode of a private directory: rwx------ (0700). */
  public static final Set<PosixFilePermission> DIRECTORY_MODE =
      PosixFilePermissions.fromString("rwx------");

  /** The mode of a private file: rw------- (0600). */
  public static final Set<PosixFilePermission> FILE_MODE =
      PosixFilePermissions.fromString("rw-------");

  private PrivateFiles() {}

  /**
   * Creates {@code dir} and each missing parent with mode 0700; parents that exist are left as they
   * are.
   *
   * @return {@code dir}
   */
  public static Path createDirectories(Path dir) throws IOException {
    return Files.createDirectories(dir, directoryMode(dir));
  }

  /**
   * Creates the empty file {@code file} with mode 0600 if it does not exist yet.
   *
   * @return whether this call created it
   */
  public static boolean createFileIfMissing(Path file) throws IOException {
    try {
      Files.createFile(file, fileMode(file));
      return true;
    } catch (FileAlreadyExistsException e) {
      return false;
    }
  }

  /**
   * Opens {@code file} as {@link FileChannel#open(Path, OpenOption...)} does; when {@code options}
   * create it, it is created with mode 0600.
   */
  public static FileChannel open(Path file, OpenOption... options) throws IOException {
    return FileChannel.open(file, Set.of(options), fileMode(file));
  }

  /**
   * Writes {@code bytes} to {@code file} as a new file with mode 0600, removing a file of that name
   * first: it is for the temporary file of an atomic replace, and a leftover from before this rule
   * may have another mode that the rename would carry into place.
   */
  public static void write(Path file, byte[] bytes) throws IOException {
    Files.deleteIfExists(file);
    try (FileChannel channel =
        open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
      ByteBuffer buffer = ByteBuffer.wrap(bytes);
      while (buffer.hasRemaining()) {
        channel.write(buffer);
      }
    }
  }

  /**
   * Sets mode 0600 on a file that a library created with modes of its own (SQLite's database and
   * its {@code -wal} and {@code -shm} files); a missing file is skipped. Used only where the
   * library gives no say over the mode, and always inside a 0700 directory, so nobody else could
   * reach the file while it had the wider mode.
   */
  public static void restrict(Path file) throws IOException {
    if (isPosix(file) && Files.exists(file)) {
      Files.setPosixFilePermissions(file, FILE_MODE);
    }
  }

  static boolean isPosix(Path path) {
    return path.getFileSystem().supportedFileAttributeViews().contains("posix");
  }

  private static FileAttribute<?>[] directoryMode(Path dir) {
    return isPosix(dir)
        ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(DIRECTORY_MODE)}
        : new FileAttribute<?>[0];
  }

  private static FileAttribute<?>[] fileMode(Path file) {
    return isPosix(file)
        ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(FILE_MODE)}
        : new FileAttribute<?>[0];
  }
}
