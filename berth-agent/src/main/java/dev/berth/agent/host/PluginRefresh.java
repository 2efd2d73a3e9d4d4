package dev.berth.agent.host;

import dev.berth.agent.archive.Trees;
import dev.berth.protocol.problem.AgentReason;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * A refresh of a session's {@link PluginCopies}, with its copies staged; closing it deletes the
 * work area.
 *
 * <p>{@link #prepare} and {@link #swap} replace the copies with the marketplace's plugins as they
 * are now (the public API's {@code POST /sessions/{id}/plugins/refresh}); the conversation is not
 * touched, it lives in the CLI's own state.
 *
 * <ul>
 *   <li>The new copies are made in the runtime's work area ({@value PluginCopies#WORK} in its
 *       state: the node's own, outside the home, which the sandbox never shows, on the home's
 *       filesystem), with no hold on the session. Nothing there is the session's to swap.
 *   <li>The swap is renames only, two per plugin: the old copy into the work area, the new one into
 *       the folder. It runs while the runner holds the session between prompts with no process of
 *       it left (the caller checks), so the checks on {@code ~/.berth} still hold at the renames.
 *   <li>All or nothing: a rename that fails puts back what the swap had moved. A crash between the
 *       renames leaves each plugin whole in the folder or in the work area; the next start puts
 *       back those it finds only there ({@link PluginCopies#copy}), and the work area is then
 *       deleted.
 *   <li>The old copies are deleted after the hold, without following a link (the session may have
 *       put any link in them): a copy of a million files holds no prompt up.
 * </ul>
 */
final class PluginRefresh implements AutoCloseable {

  private static final org.slf4j.Logger LOG =
      org.slf4j.LoggerFactory.getLogger(PluginRefresh.class);

  private final List<AgentLaunch.Plugin> plugins;
  private final Path folder;
  private final Path work;
  private final Path staging;
  private final Path old;
  private final String runtime;
  private final Consumer<List<Path>> owner;
  private final PluginCopies.Move move;
  private boolean keepOld;

  private PluginRefresh(
      List<AgentLaunch.Plugin> plugins,
      Path folder,
      Path work,
      String runtime,
      Consumer<List<Path>> owner,
      PluginCopies.Move move) {
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
   * Stages the marketplace's plugins as they are now in {@code work}, for {@link #swap}. Needs no
   * hold on the session: the work area is the node's own.
   *
   * @param owner gives the paths made to the session's uid
   * @throws HostRefusal 409 PLUGIN_UNAVAILABLE when a plugin is no longer in the marketplace
   */
  static PluginRefresh prepare(
      List<AgentLaunch.Plugin> plugins,
      Path folder,
      Path work,
      String runtime,
      Consumer<List<Path>> owner) {
    return prepare(plugins, folder, work, runtime, owner, PluginCopies.Move.ATOMIC);
  }

  /** As the other {@code prepare}, the swap's renames made by {@code move} (a test's fail). */
  static PluginRefresh prepare(
      List<AgentLaunch.Plugin> plugins,
      Path folder,
      Path work,
      String runtime,
      Consumer<List<Path>> owner,
      PluginCopies.Move move) {
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
    PluginRefresh refresh = new PluginRefresh(plugins, folder, work, runtime, owner, move);
    try {
      // A crash's work area was recovered at start. What an earlier refresh left here: its
      // staging and retired copies go; old copies a failed put-back kept are put back by the swap.
      Trees.delete(refresh.staging);
      Trees.delete(work.resolve("retired"));
      Files.createDirectories(refresh.staging);
      Files.createDirectories(refresh.old);
      for (AgentLaunch.Plugin plugin : plugins) {
        owner.accept(
            PluginCopies.copyTree(Path.of(plugin.path()), refresh.staging.resolve(plugin.name())));
      }
    } catch (IOException e) {
      refresh.close();
      throw new UncheckedIOException(
          "cannot stage the plugins of runtime " + runtime + " in " + work + ": " + e, e);
    }
    return refresh;
  }

  /**
   * Swaps the staged copies in; only while no process of the session runs.
   *
   * @return the names refreshed, in order
   * @throws HostRefusal 409 PLUGINS_FOLDER_UNSAFE when {@code ~/.berth} or its plugin folder is not
   *     a plain directory; nothing is changed then
   */
  List<String> swap() {
    List<Path> created = new ArrayList<>();
    try {
      // It refuses before it creates anything: a missing ~/.berth has no plugin folder either.
      if (!PluginCopies.plainDirectories(folder, created)) {
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
   * Deletes the work area with what the swap retired (only the staging, when an old copy could not
   * be put back); a failure is only logged.
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
