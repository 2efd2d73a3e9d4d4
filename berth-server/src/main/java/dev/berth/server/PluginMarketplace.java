package dev.berth.server;

import dev.berth.core.error.InvalidValueException;
import dev.berth.core.session.PluginName;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The platform's plugin marketplace ({@code --plugins-dir DIR}): each directory in it is a Claude
 * Code plugin ({@code NAME/.claude-plugin/plugin.json}) that a session may ask for by {@code NAME}.
 *
 * <p>Decisions: the directory is read once at start (a plugin added later is offered after a
 * restart), so that {@code GET /config} and the creates it answers agree; an entry that is not a
 * plugin (a bad name, no {@code plugin.json}, a symbolic link) stops the server at start rather
 * than being skipped silently; dot-files are ignored. A session gets a copy of its plugins at its
 * first start (see the node's agent workload), so a later change here never reaches a session that
 * has them already: nothing refreshes automatically.
 */
public final class PluginMarketplace {

  private final Optional<Path> directory;
  private final List<PluginName> plugins;

  private PluginMarketplace(Optional<Path> directory, List<PluginName> plugins) {
    this.directory = directory;
    this.plugins = List.copyOf(plugins);
  }

  /** No marketplace: no type takes plugins. */
  public static PluginMarketplace none() {
    return new PluginMarketplace(Optional.empty(), List.of());
  }

  /**
   * Reads {@code directory}.
   *
   * @throws IllegalArgumentException naming the entry and the rule it breaks
   */
  public static PluginMarketplace load(Path directory) {
    Path dir = directory.toAbsolutePath().normalize();
    if (!Files.isDirectory(dir)) {
      throw new IllegalArgumentException("--plugins-dir " + dir + " is not a directory");
    }
    List<PluginName> names = new ArrayList<>();
    try (Stream<Path> entries = Files.list(dir)) {
      for (Path entry : entries.sorted().toList()) {
        String name = entry.getFileName().toString();
        if (!name.startsWith(".")) {
          names.add(plugin(dir, entry, name));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("--plugins-dir " + dir + " cannot be read: " + e, e);
    }
    return new PluginMarketplace(Optional.of(dir), names);
  }

  private static PluginName plugin(Path dir, Path entry, String name) {
    PluginName plugin;
    try {
      plugin = new PluginName(name);
    } catch (InvalidValueException e) {
      throw new IllegalArgumentException("--plugins-dir " + dir + ": " + e.getMessage(), e);
    }
    // No link anywhere on the way: a session's copy leaves links out, so a linked manifest would
    // be offered here and missing there.
    if (!Files.isDirectory(entry, LinkOption.NOFOLLOW_LINKS)
        || !Files.isDirectory(entry.resolve(".claude-plugin"), LinkOption.NOFOLLOW_LINKS)
        || !Files.isRegularFile(
            entry.resolve(".claude-plugin").resolve("plugin.json"), LinkOption.NOFOLLOW_LINKS)) {
      throw new IllegalArgumentException(
          "--plugins-dir "
              + dir
              + ": "
              + name
              + " is not a plugin (a directory, not a link, holding .claude-plugin/plugin.json);"
              + " remove it or make it one");
    }
    return plugin;
  }

  /** Whether a marketplace is configured. */
  public boolean configured() {
    return directory.isPresent();
  }

  /** The plugins offered, by name, sorted. */
  public List<PluginName> plugins() {
    return plugins;
  }

  /** Where {@code plugin} is; only for a plugin of {@link #plugins()}. */
  public Path path(PluginName plugin) {
    if (directory.isEmpty() || !plugins.contains(plugin)) {
      throw new IllegalArgumentException(plugin + " is not in the marketplace " + plugins);
    }
    return directory.get().resolve(plugin.value());
  }
}
