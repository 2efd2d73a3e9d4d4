package dev.berth.agent.archive;

import static java.nio.file.LinkOption.NOFOLLOW_LINKS;
import static java.nio.file.StandardCopyOption.ATOMIC_MOVE;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Objects;

/**
 * The two sibling directories of a restore target {@code T}, and the swap between them. {@code
 * .T.restore-staging} receives the extraction; {@code .T.restore-old} briefly holds the previous
 * tree. Both live in T's parent, so every move is a rename on one filesystem.
 *
 * <p>Commit: rename T to old, force the parent; rename staging to T, force the parent; delete old.
 * A crash leaves one of these states, which {@link #recover()} (run first by every restore) turns
 * into a whole tree: staging present, old absent: an unfinished extraction, deleted, T untouched;
 * old present, T absent: the crash fell between the two renames, so old is renamed back to T (the
 * previous tree wins) and staging deleted; old and T present: the swap finished, old is deleted.
 * One restore at a time per target; the caller serialises them.
 */
final class StagingSwap {
  private static final String STAGING = ".restore-staging";
  private static final String OLD = ".restore-old";

  private final Path target;
  private final Path parent;
  private final Path staging;
  private final Path old;

  private StagingSwap(Path target) {
    this.target = target;
    this.parent = Objects.requireNonNull(target.getParent()); // of() refused the root
    String name = target.getFileName().toString();
    this.staging = parent.resolve("." + name + STAGING);
    this.old = parent.resolve("." + name + OLD);
  }

  static StagingSwap of(Path target) {
    Path absolute = target.toAbsolutePath().normalize();
    if (absolute.getParent() == null) {
      throw new IllegalArgumentException("cannot restore over the filesystem root");
    }
    return new StagingSwap(absolute);
  }

  Path staging() {
    return staging;
  }

  /** Finishes or undoes whatever an interrupted restore left; returns whether there was any. */
  boolean recover() throws IOException {
    boolean found = false;
    if (exists(old)) {
      found = true;
      if (exists(target)) {
        Trees.delete(old);
      } else {
        Files.move(old, target, ATOMIC_MOVE);
        Trees.force(parent);
      }
    }
    if (exists(staging)) {
      found = true;
      Trees.delete(staging);
    }
    return found;
  }

  /** A fresh, private staging directory; the restored root keeps the old root's permissions. */
  Path createStaging() throws IOException {
    Files.createDirectory(
        staging,
        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    return staging;
  }

  /** Copies the old root's permission bits (if there is an old root) onto the staging root. */
  void keepRootPermissions() throws IOException {
    if (exists(target)) {
      Files.setPosixFilePermissions(staging, Files.getPosixFilePermissions(target, NOFOLLOW_LINKS));
    }
  }

  void commit() throws IOException {
    boolean hadTarget = exists(target);
    if (hadTarget) {
      Files.move(target, old, ATOMIC_MOVE);
      Trees.force(parent);
    }
    try {
      Files.move(staging, target, ATOMIC_MOVE);
    } catch (IOException | RuntimeException e) {
      if (hadTarget) {
        Files.move(old, target, ATOMIC_MOVE);
      }
      throw e;
    }
    Trees.force(parent);
    Trees.delete(old);
  }

  /** Removes the staging directory after a failed restore, keeping the failure as the cause. */
  void discard(Throwable failure) {
    try {
      Trees.delete(staging);
    } catch (IOException | RuntimeException e) {
      failure.addSuppressed(e);
    }
  }

  private static boolean exists(Path p) {
    return Files.exists(p, NOFOLLOW_LINKS);
  }
}
