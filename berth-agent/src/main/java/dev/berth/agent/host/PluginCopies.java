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
import java.util.function.Consumer;

/**
 * A session's copies of its marketplace plugins, made in its home at its first start.
 *
 * <p>Why copies: the session keeps the plugins it was created with, in the archive with its home,
 * across snapshot and restore, whatever the marketplace becomes (nothing refreshes automatically);
 * and the sandbox shows the session nothing of the host's marketplace. A plugin already in the
 * folder is never copied again (a start that finds one missing copies it from the marketplace as it
 * is then). Only directories and regular files are copied: a symbolic link in a plugin would point
 * the session at a host path, so it is left out, as is anything else.
 *
 * <p>The folder is in the session's home, which the session writes: the node (root, maybe) follows
 * no link on the way to it. A {@code ~/.berth} or {@code ~/.berth/plugins} that is not a plain
 * directory (a link to {@code /etc}, say, kept in an archive) gets no copies, and the session no
 * plugins, with a warning. No process of the session runs while the host starts it, so nothing
 * swaps a component between this check and the copy.
 *
 * <p>A refresh ({@link #refresh}, the public API's {@code POST /sessions/{id}/plugins/refresh})
 * replaces the copies with the marketplace's plugins as they are now, between prompts: an agent
 * session runs no process then (each prompt's CLI runs in its own PID namespace, which dies with
 * it, and the runner starts none while the refresh runs), so the same checks hold for it. It is all
 * or nothing: every new copy is made beside the folder first ({@code ~/.berth/plugins.staging}),
 * and only then are the copies swapped in, one rename each; the old copies go through {@code
 * ~/.berth/plugins.old} and are deleted without following a link (the session may have put any link
 * in them). The conversation is not touched: it lives in the CLI's own state.
 */
final class PluginCopies {

  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(PluginCopies.class);

  private PluginCopies() {}

  /**
   * Copies each plugin not yet in {@code folder} there, under its name.
   *
   * @return the paths created, for the workload to own
   */
  static List<Path> copy(List<AgentLaunch.Plugin> plugins, Path folder) {
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
      try {
        Path staging = folder.resolve("." + plugin.name() + ".copying");
        Trees.delete(staging);
        List<Path> copied = copyTree(Path.of(plugin.path()), staging);
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
   * Makes {@code folder} and its parent ({@code ~/.berth}) plain directories, creating what is
   * missing (into {@code created}); false when either is there as anything else.
   */
  private static boolean plainDirectories(Path folder, List<Path> created) throws IOException {
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

  /**
   * Replaces the copy of each of {@code plugins} in {@code folder} with the plugin as its
   * marketplace directory holds it now; adds the copy of one the first start did not find.
   *
   * @param owner gives the paths made to the session's uid, before they are swapped in
   * @return the names refreshed, in order
   * @throws HostRefusal 409 PLUGINS_FOLDER_UNSAFE when {@code ~/.berth} or a folder in it is not a
   *     plain directory, 409 PLUGIN_UNAVAILABLE when a plugin is no longer in the marketplace;
   *     nothing is changed then
   */
  static List<String> refresh(
      List<AgentLaunch.Plugin> plugins, Path folder, String runtime, Consumer<List<Path>> owner) {
    if (plugins.isEmpty()) {
      return List.of();
    }
    List<String> missing =
        plugins.stream()
            .filter(p -> !Files.isDirectory(Path.of(p.path()), LinkOption.NOFOLLOW_LINKS))
            .map(AgentLaunch.Plugin::name)
            .toList();
    if (!missing.isEmpty()) {
      throw new HostRefusal(
          409,
          "PLUGIN_UNAVAILABLE",
          "runtime "
              + runtime
              + " cannot refresh its plugins: "
              + missing
              + " is no longer in the marketplace (or is not a directory there); its copy is kept"
              + " as it was. Put the plugin back in the marketplace, then refresh again");
    }
    Path staging = sibling(folder, ".staging");
    Path old = sibling(folder, ".old");
    try {
      List<Path> created = new ArrayList<>();
      if (!plainDirectories(folder, created)
          || !plainDirectory(staging, created)
          || !plainDirectory(old, created)) {
        throw unsafe(folder, runtime);
      }
      owner.accept(created);
      // A refresh that a crash cut short left its copies here: they are not the session's.
      clear(staging);
      clear(old);
      for (AgentLaunch.Plugin plugin : plugins) {
        owner.accept(copyTree(Path.of(plugin.path()), staging.resolve(plugin.name())));
      }
      for (AgentLaunch.Plugin plugin : plugins) {
        Path target = folder.resolve(plugin.name());
        if (Files.exists(target, LinkOption.NOFOLLOW_LINKS)) {
          Files.move(target, old.resolve(plugin.name()), StandardCopyOption.ATOMIC_MOVE);
        }
        Files.move(staging.resolve(plugin.name()), target, StandardCopyOption.ATOMIC_MOVE);
      }
      Trees.delete(staging);
      Trees.delete(old);
    } catch (IOException e) {
      deleteQuietly(staging);
      throw new UncheckedIOException(
          "cannot refresh the plugins of runtime " + runtime + " in " + folder + ": " + e, e);
    }
    return plugins.stream().map(AgentLaunch.Plugin::name).toList();
  }

  private static HostRefusal unsafe(Path folder, String runtime) {
    return new HostRefusal(
        409,
        "PLUGINS_FOLDER_UNSAFE",
        "runtime "
            + runtime
            + ": "
            + folder
            + ", its parent or a folder beside it is not a plain directory (a link?), so the node"
            + " writes no plugin through it; nothing was changed. Have the agent remove it"
            + " (rm ~/.berth/plugins*), then refresh again: the folder is made anew");
  }

  private static void deleteQuietly(Path dir) {
    try {
      Trees.delete(dir);
    } catch (IOException e) {
      LOG.warn("cannot remove the plugin copies staged in {}: {}", dir, e.toString());
    }
  }

  /** {@code ~/.berth/plugins} + {@code suffix}, beside the folder, on the same filesystem. */
  private static Path sibling(Path folder, String suffix) {
    return folder.resolveSibling(folder.getFileName() + suffix);
  }

  private static boolean plainDirectory(Path dir, List<Path> created) throws IOException {
    if (Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
      return Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS);
    }
    Files.createDirectory(dir);
    created.add(dir);
    return true;
  }

  /** Deletes what is in {@code dir} (links as links), keeping {@code dir}. */
  private static void clear(Path dir) throws IOException {
    try (java.util.stream.Stream<Path> entries = Files.list(dir)) {
      for (Path entry : entries.toList()) {
        Trees.delete(entry);
      }
    }
  }

  private static List<Path> copyTree(Path from, Path to) throws IOException {
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
