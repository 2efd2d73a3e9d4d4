package dev.berth.agent.host;

import dev.berth.agent.archive.Trees;
import dev.berth.protocol.problem.AgentReason;
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
 * <h2>Refresh</h2>
 *
 * {@link #prepare} and {@link Refresh#swap} replace the copies with the marketplace's plugins as
 * they are now (the public API's {@code POST /sessions/{id}/plugins/refresh}); the conversation is
 * not touched, it lives in the CLI's own state.
 *
 * <ul>
 *   <li>The new copies are made in the runtime's work area ({@value #WORK} in its state: the node's
 *       own, outside the home, which the sandbox never shows, on the home's filesystem), with no
 *       hold on the session. Nothing there is the session's to swap.
 *   <li>The swap is renames only, two per plugin: the old copy into the work area, the new one into
 *       the folder. It runs while the runner holds the session between prompts with no process of
 *       it left (the caller checks), so the checks on {@code ~/.berth} still hold at the renames.
 *   <li>All or nothing: a rename that fails puts back what the swap had moved. A crash between the
 *       renames leaves each plugin whole in the folder or in the work area; the next start puts
 *       back those it finds only there ({@link #copy}), and the work area is then deleted.
 *   <li>The old copies are deleted after the hold, without following a link (the session may have
 *       put any link in them): a copy of a million files holds no prompt up.
 * </ul>
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
   * Stages the marketplace's plugins as they are now in {@code work}, for {@link Refresh#swap}.
   * Needs no hold on the session: the work area is the node's own.
   *
   * @param owner gives the paths made to the session's uid
   * @throws HostRefusal 409 PLUGIN_UNAVAILABLE when a plugin is no longer in the marketplace
   */
  static Refresh prepare(
      List<AgentLaunch.Plugin> plugins,
      Path folder,
      Path work,
      String runtime,
      Consumer<List<Path>> owner) {
    return prepare(plugins, folder, work, runtime, owner, Move.ATOMIC);
  }

  /** As the other {@code prepare}, the swap's renames made by {@code move} (a test's fail). */
  static Refresh prepare(
      List<AgentLaunch.Plugin> plugins,
      Path folder,
      Path work,
      String runtime,
      Consumer<List<Path>> owner,
      Move move) {
    List<String> missing =
        plugins.stream()
            .filter(p -> !Files.isDirectory(Path.of(p.path()), LinkOption.NOFOLLOW_LINKS))
            .map(AgentLaunch.Plugin::name)
            .toList();
    if (!missing.isEmpty()) {
      throw new HostRefusal(
          409,
          AgentReason.PLUGIN_UNAVAILABLE,
          "runtime "
              + runtime
              + " cannot refresh its plugins: "
              + missing
              + " is no longer in the marketplace (or is not a directory there); every copy is kept"
              + " as it was. Put the plugin back in the marketplace, then refresh again");
    }
    Refresh refresh = new Refresh(plugins, folder, work, runtime, owner, move);
    try {
      // A crash's work area was recovered at start. What an earlier refresh left here: its
      // staging and retired copies go; old copies a failed put-back kept are put back by the swap.
      Trees.delete(refresh.staging);
      Trees.delete(work.resolve("retired"));
      Files.createDirectories(refresh.staging);
      Files.createDirectories(refresh.old);
      for (AgentLaunch.Plugin plugin : plugins) {
        owner.accept(copyTree(Path.of(plugin.path()), refresh.staging.resolve(plugin.name())));
      }
    } catch (IOException e) {
      refresh.close();
      throw new UncheckedIOException(
          "cannot stage the plugins of runtime " + runtime + " in " + work + ": " + e, e);
    }
    return refresh;
  }

  /** A refresh with its copies staged; closing it deletes the work area. */
  static final class Refresh implements AutoCloseable {
    private final List<AgentLaunch.Plugin> plugins;
    private final Path folder;
    private final Path work;
    private final Path staging;
    private final Path old;
    private final String runtime;
    private final Consumer<List<Path>> owner;
    private final Move move;
    private boolean keepOld;

    Refresh(
        List<AgentLaunch.Plugin> plugins,
        Path folder,
        Path work,
        String runtime,
        Consumer<List<Path>> owner,
        Move move) {
      this.plugins = List.copyOf(plugins);
      this.folder = folder;
      this.work = work;
      this.staging = work.resolve("staging");
      this.old = work.resolve("old");
      this.runtime = runtime;
      this.owner = owner;
      this.move = move;
    }

    /**
     * Swaps the staged copies in; only while no process of the session runs.
     *
     * @return the names refreshed, in order
     * @throws HostRefusal 409 PLUGINS_FOLDER_UNSAFE when {@code ~/.berth} or its plugin folder is
     *     not a plain directory; nothing is changed then
     */
    List<String> swap() {
      List<Path> created = new ArrayList<>();
      try {
        // It refuses before it creates anything: a missing ~/.berth has no plugin folder either.
        if (!plainDirectories(folder, created)) {
          throw unsafe();
        }
      } catch (IOException e) {
        throw new UncheckedIOException("cannot create the plugin folder " + folder + ": " + e, e);
      }
      owner.accept(created);
      List<Swapped> swapped = new ArrayList<>();
      try {
        putBackWhatAFailedRefreshKept();
        for (AgentLaunch.Plugin plugin : plugins) {
          swapped.add(swapIn(plugin.name()));
        }
        // The mark that the swap is whole: a start after a crash from here on only deletes.
        move.move(old, work.resolve("retired"));
      } catch (IOException | RuntimeException e) {
        swapped.reversed().forEach(this::putBack);
        throw new UncheckedIOException(
            "cannot refresh the plugins of runtime "
                + runtime
                + ": "
                + e
                + (keepOld
                    ? "; a copy could not be put back, and is kept for the next refresh or start to"
                        + " put back"
                    : "; every copy is as it was (retry the refresh)"),
            e instanceof IOException io ? io : new IOException(e));
      }
      return plugins.stream().map(AgentLaunch.Plugin::name).toList();
    }

    /** Old copies a put-back could not restore go back now, in place of what stands there. */
    private void putBackWhatAFailedRefreshKept() throws IOException {
      try (var kept = Files.list(old)) {
        for (Path copy : kept.toList()) {
          Path target = folder.resolve(copy.getFileName().toString());
          Trees.delete(target);
          move.move(copy, target);
        }
      }
    }

    private record Swapped(String name, boolean hadCopy) {}

    private Swapped swapIn(String name) throws IOException {
      Path target = folder.resolve(name);
      boolean had = Files.exists(target, LinkOption.NOFOLLOW_LINKS);
      if (had) {
        move.move(target, old.resolve(name));
      }
      try {
        move.move(staging.resolve(name), target);
      } catch (IOException e) {
        if (had) {
          try {
            move.move(old.resolve(name), target);
          } catch (IOException again) {
            keepOld = true;
            e.addSuppressed(again);
          }
        }
        throw e;
      }
      return new Swapped(name, had);
    }

    private void putBack(Swapped swapped) {
      Path target = folder.resolve(swapped.name());
      try {
        move.move(target, staging.resolve(swapped.name()));
        if (swapped.hadCopy()) {
          move.move(old.resolve(swapped.name()), target);
        }
      } catch (IOException e) {
        keepOld = true;
        LOG.error(
            "a failed plugin refresh of runtime {} could not put back {} ({}); its old copy is kept"
                + " in {} for the next refresh or start to put back",
            runtime,
            target,
            e.toString(),
            old);
      }
    }

    private HostRefusal unsafe() {
      return new HostRefusal(
          409,
          AgentReason.PLUGINS_FOLDER_UNSAFE,
          "runtime "
              + runtime
              + ": ~/.berth or ~/.berth/plugins is not a plain directory (a link?), so the node"
              + " writes no plugin through it; nothing was changed. Have the agent remove it"
              + " (rm ~/.berth/plugins), then refresh again: the folder is made anew");
    }

    /**
     * Deletes the work area with what the swap retired (only the staging, when an old copy could
     * not be put back); a failure is only logged.
     */
    @Override
    public void close() {
      try {
        Trees.delete(keepOld ? staging : work);
      } catch (IOException e) {
        LOG.warn("cannot delete the plugin refresh's work area {}: {}", work, e.toString());
      }
    }
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

  /** Whether {@code folder} and its parent are there, as plain directories. */
  private static boolean plainDirectoriesNow(Path folder) {
    Path parent = folder.getParent();
    return Files.isDirectory(folder, LinkOption.NOFOLLOW_LINKS)
        && (parent == null || Files.isDirectory(parent, LinkOption.NOFOLLOW_LINKS));
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
