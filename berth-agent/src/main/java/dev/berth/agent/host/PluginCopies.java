package dev.berth.agent.host;

import dev.berth.agent.archive.Trees;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;

/**
 * A session's copies of its marketplace plugins, made in its home at its first start.
 *
 * <p>Why copies: the session keeps the plugins it was created with, in the archive with its home,
 * across snapshot and restore, whatever the marketplace becomes (nothing refreshes automatically);
 * and the sandbox shows the session nothing of the host's marketplace. A plugin already in the
 * folder is never copied again (a start that finds one missing copies it from the marketplace as it
 * is then, or warns when the marketplace no longer has it). Only directories and regular files are
 * copied: a symbolic link in a plugin would point the session at a host path, so it is left out, as
 * is anything else.
 *
 * <p>The folder is in the session's home, which the session writes: the node (root, maybe) follows
 * no link on the way to it. A {@code ~/.berth} or {@code ~/.berth/plugins} that is not a plain
 * directory (a link to {@code /etc}, say, kept in an archive) gets no copies, and the session no
 * plugins, with a warning. No process of the session runs while the host starts it, so nothing
 * swaps a component between this check and the copy.
 *
 * <p>{@link PluginRefresh} replaces the copies with the marketplace's plugins as they are now.
 */
final class PluginCopies {

  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(PluginCopies.class);

  /** The work area of a refresh, in a runtime's state. */
  static final String WORK = "plugin-refresh";

  /** How the swap moves a directory; a test makes one fail. */
  interface Move {
    void move(Path from, Path to) throws IOException;

    Move ATOMIC = (from, to) -> Files.move(from, to, StandardCopyOption.ATOMIC_MOVE);
  }

  private PluginCopies() {}

  /**
   * Copies each plugin not yet in {@code folder} there, under its name, after putting back what a
   * refresh that a crash cut short left in {@code work}.
   *
   * @return the paths created, for the workload to own
   */
  static List<Path> copy(List<AgentLaunch.Plugin> plugins, Path folder, Path work) {
    recover(folder, work);
    List<Path> created = new ArrayList<>();
    if (plugins.isEmpty()) {
      return created;
    }
    try {
      if (!plainDirectories(folder, created)) {
        LOG.warn(
            "{} or its parent is not a plain directory (a link?): the session gets no plugins",
            folder);
        return List.of();
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create the plugin folder " + folder + ": " + e, e);
    }
    for (AgentLaunch.Plugin plugin : plugins) {
      Path target = folder.resolve(plugin.name());
      if (Files.exists(target, LinkOption.NOFOLLOW_LINKS)) {
        continue;
      }
      Path source = Path.of(plugin.path());
      if (!Files.isDirectory(source, LinkOption.NOFOLLOW_LINKS)) {
        LOG.warn(
            "the plugin {} is no longer in the marketplace ({}): the session starts without it",
            plugin.name(),
            source);
        continue;
      }
      try {
        Path staging = folder.resolve("." + plugin.name() + ".copying");
        Trees.delete(staging);
        List<Path> copied = copyTree(source, staging);
        Files.move(staging, target, StandardCopyOption.ATOMIC_MOVE);
        for (Path each : copied) {
          created.add(target.resolve(staging.relativize(each)));
        }
      } catch (IOException e) {
        throw new UncheckedIOException(
            "cannot copy the plugin " + plugin.name() + " from " + plugin.path() + ": " + e, e);
      }
    }
    return created;
  }

  /**
   * Undoes a refresh a crash cut short, then deletes the work area. A refresh that swapped every
   * copy in renamed {@code old} to {@code retired} as its last step: its old copies only wait to be
   * deleted. Otherwise each old copy goes back in place of what the folder holds under its name (a
   * new copy, or nothing), so the session has the plugins it had before the refresh. Only at a
   * start: no process of the session runs.
   */
  private static void recover(Path folder, Path work) {
    if (!Files.exists(work, LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    Path old = work.resolve("old");
    try {
      if (!Files.exists(work.resolve("retired"), LinkOption.NOFOLLOW_LINKS)
          && Files.isDirectory(old, LinkOption.NOFOLLOW_LINKS)
          && plainDirectoriesNow(folder)) {
        try (var retired = Files.list(old)) {
          for (Path copy : retired.toList()) {
            Path target = folder.resolve(copy.getFileName().toString());
            Trees.delete(target);
            Files.move(copy, target, StandardCopyOption.ATOMIC_MOVE);
            LOG.warn("a plugin refresh was cut short: {} is back as it was before it", target);
          }
        }
      }
      Trees.delete(work);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot recover the plugin refresh left in " + work, e);
    }
  }

  /**
   * Makes {@code folder} and its parent ({@code ~/.berth}) plain directories, creating what is
   * missing (into {@code created}); false when either is there as anything else.
   */
  static boolean plainDirectories(Path folder, List<Path> created) throws IOException {
    Path parent = folder.getParent();
    for (Path dir : parent == null ? List.of(folder) : List.of(parent, folder)) {
      if (Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
        if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
          return false;
        }
      } else {
        Files.createDirectory(dir);
        created.add(dir);
      }
    }
    return true;
  }

  /** Whether {@code folder} and its parent are there, as plain directories. */
  private static boolean plainDirectoriesNow(Path folder) {
    Path parent = folder.getParent();
    return Files.isDirectory(folder, LinkOption.NOFOLLOW_LINKS)
        && (parent == null || Files.isDirectory(parent, LinkOption.NOFOLLOW_LINKS));
  }

  static List<Path> copyTree(Path from, Path to) throws IOException {
    List<Path> copied = new ArrayList<>();
    Files.walkFileTree(
        from,
        new SimpleFileVisitor<>() {
          @Override
          public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs)
              throws IOException {
            Path target = to.resolve(from.relativize(dir).toString());
            Files.createDirectories(target);
            copied.add(target);
            return FileVisitResult.CONTINUE;
          }

          @Override
          public FileVisitResult visitFile(Path file, BasicFileAttributes attrs)
              throws IOException {
            if (attrs.isRegularFile()) {
              Path target = to.resolve(from.relativize(file).toString());
              Files.copy(file, target);
              copied.add(target);
            }
            return FileVisitResult.CONTINUE;
          }
        });
    return copied;
  }
}
