package dev.berth.agent.archive;

import static java.nio.file.LinkOption.NOFOLLOW_LINKS;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import java.util.Set;

/**
 * Filesystem chores of a restore, and of the host: deleting a tree without following links, forcing
 * a directory.
 */
public final class Trees {
  private static final Set<PosixFilePermission> OWNER_ALL =
      PosixFilePermissions.fromString("rwx------");

  private Trees() {}

  /**
   * Deletes {@code root} and everything below it, if it exists. Symlinks are deleted, never
   * followed. Directories are made owner-accessible first, since a restored mode may forbid listing
   * or deleting their entries.
   */
  public static void delete(Path root) throws IOException {
    if (!Files.exists(root, NOFOLLOW_LINKS)) {
      return;
    }
    Files.walkFileTree(
        root,
        new SimpleFileVisitor<>() {
          @Override
          public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs)
              throws IOException {
            // Read and changed without following a link: a directory the session swapped for a
            // link meanwhile fails the change (O_NOFOLLOW), never changes the link's target.
            PosixFileAttributeView view =
                Files.getFileAttributeView(dir, PosixFileAttributeView.class, NOFOLLOW_LINKS);
            Set<PosixFilePermission> perms = view.readAttributes().permissions();
            if (!perms.containsAll(OWNER_ALL)) {
              perms.addAll(OWNER_ALL);
              view.setPermissions(perms);
            }
            return FileVisitResult.CONTINUE;
          }

          @Override
          public FileVisitResult visitFile(Path file, BasicFileAttributes attrs)
              throws IOException {
            Files.delete(file);
            return FileVisitResult.CONTINUE;
          }

          @Override
          public FileVisitResult postVisitDirectory(Path dir, IOException failure)
              throws IOException {
            if (failure != null) {
              throw failure;
            }
            Files.delete(dir);
            return FileVisitResult.CONTINUE;
          }
        });
  }

  /** Makes the entries of {@code dir} durable (Linux lets a directory be opened for this). */
  static void force(Path dir) throws IOException {
    try (FileChannel channel = FileChannel.open(dir, StandardOpenOption.READ)) {
      channel.force(true);
    }
  }

  static Set<PosixFilePermission> permissions(int mode) {
    Set<PosixFilePermission> perms = EnumSet.noneOf(PosixFilePermission.class);
    PosixFilePermission[] order = PosixFilePermission.values(); // OWNER_READ .. OTHERS_EXECUTE
    for (int bit = 0; bit < 9; bit++) {
      if ((mode & (0400 >> bit)) != 0) {
        perms.add(order[bit]);
      }
    }
    return perms;
  }
}
