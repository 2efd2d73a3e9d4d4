package dev.berth.agent.host;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PluginCopiesTest {

  @TempDir Path dir;

  private Path marketplacePlugin() throws IOException {
    Path plugin = Files.createDirectories(dir.resolve("market/lint/.claude-plugin"));
    Files.writeString(plugin.resolve("plugin.json"), "{\"name\":\"lint\"}");
    Files.createDirectories(dir.resolve("market/lint/skills/a"));
    Files.writeString(dir.resolve("market/lint/skills/a/SKILL.md"), "skill");
    return dir.resolve("market/lint");
  }

  @Test
  void aPluginIsCopiedOnceUnderItsNameAndAnExistingCopyIsKept() throws IOException {
    Path source = marketplacePlugin();
    Path folder = Files.createDirectories(dir.resolve("home")).resolve(".berth/plugins");
    List<AgentLaunch.Plugin> plugins = List.of(new AgentLaunch.Plugin("lint", source.toString()));

    List<Path> created = PluginCopies.copy(plugins, folder);

    assertThat(folder.resolve("lint/skills/a/SKILL.md")).hasContent("skill");
    assertThat(created)
        .contains(folder.getParent(), folder, folder.resolve("lint/.claude-plugin/plugin.json"));
    Files.writeString(source.resolve("skills/a/SKILL.md"), "changed in the marketplace");
    assertThat(PluginCopies.copy(plugins, folder)).isEmpty();
    assertThat(folder.resolve("lint/skills/a/SKILL.md")).hasContent("skill");
    try (var left = Files.list(folder)) {
      assertThat(left.map(p -> p.getFileName().toString())).containsExactly("lint");
    }
  }

  @Test
  void aPluginFolderTheSessionLinkedElsewhereGetsNoCopyAndTheLinkTargetIsUntouched()
      throws IOException {
    Path source = marketplacePlugin();
    Path host = Files.createDirectories(dir.resolve("host-etc"));
    Path home = Files.createDirectories(dir.resolve("home"));
    Files.createSymbolicLink(home.resolve(".berth"), host);

    List<Path> created =
        PluginCopies.copy(
            List.of(new AgentLaunch.Plugin("lint", source.toString())),
            home.resolve(".berth/plugins"));

    assertThat(created).isEmpty();
    try (var left = Files.list(host)) {
      assertThat(left).as("nothing written through the link").isEmpty();
    }
  }

  @Test
  void aSymbolicLinkInAPluginIsLeftOutSoTheSessionIsPointedAtNoHostPath() throws IOException {
    Path source = marketplacePlugin();
    Files.writeString(dir.resolve("host-secret"), "token");
    Files.createSymbolicLink(source.resolve("leak"), dir.resolve("host-secret"));
    Path folder = Files.createDirectories(dir.resolve("home")).resolve(".berth/plugins");

    PluginCopies.copy(List.of(new AgentLaunch.Plugin("lint", source.toString())), folder);

    assertThat(folder.resolve("lint/leak")).doesNotExist();
    assertThat(Files.exists(folder.resolve("lint/leak"), LinkOption.NOFOLLOW_LINKS)).isFalse();
    assertThat(folder.resolve("lint/.claude-plugin/plugin.json")).exists();
  }

  // ---- refresh ---------------------------------------------------------------------------------

  private final List<Path> owned = new java.util.ArrayList<>();

  private List<String> refresh(List<AgentLaunch.Plugin> plugins, Path folder) {
    return PluginCopies.refresh(plugins, folder, "r-1", owned::addAll);
  }

  private static List<String> names(Path dir) throws IOException {
    try (var entries = Files.list(dir)) {
      return entries.map(p -> p.getFileName().toString()).sorted().toList();
    }
  }

  @Test
  void aRefreshReplacesTheCopyWithThePluginAsTheMarketplaceHoldsItNowAndLeavesNothingBeside()
      throws IOException {
    Path source = marketplacePlugin();
    Path folder = Files.createDirectories(dir.resolve("home")).resolve(".berth/plugins");
    List<AgentLaunch.Plugin> plugins = List.of(new AgentLaunch.Plugin("lint", source.toString()));
    PluginCopies.copy(plugins, folder);
    Files.writeString(source.resolve("skills/a/SKILL.md"), "changed in the marketplace");
    Files.writeString(source.resolve("skills/a/NEW.md"), "new");
    Files.writeString(folder.resolve("lint/skills/a/mine.txt"), "the session's own, in the copy");

    assertThat(refresh(plugins, folder)).containsExactly("lint");

    assertThat(folder.resolve("lint/skills/a/SKILL.md")).hasContent("changed in the marketplace");
    assertThat(names(folder.resolve("lint/skills/a"))).containsExactly("NEW.md", "SKILL.md");
    assertThat(names(folder)).containsExactly("lint");
    assertThat(names(folder.getParent())).as("no staging left").containsExactly("plugins");
    assertThat(owned).contains(folder.getParent().resolve("plugins.staging/lint/skills/a/NEW.md"));
  }

  @Test
  void aRefreshAddsTheCopyOfAPluginTheFirstStartDidNotFindAndOfNoneWithoutPlugins()
      throws IOException {
    Path source = marketplacePlugin();
    Path folder = Files.createDirectories(dir.resolve("home")).resolve(".berth/plugins");

    assertThat(refresh(List.of(), folder)).isEmpty();
    assertThat(folder.getParent()).doesNotExist();
    assertThat(refresh(List.of(new AgentLaunch.Plugin("lint", source.toString())), folder))
        .containsExactly("lint");
    assertThat(folder.resolve("lint/.claude-plugin/plugin.json")).exists();
  }

  @Test
  void aPluginGoneFromTheMarketplaceRefusesTheRefreshAndEveryCopyStaysAsItWas() throws IOException {
    Path lint = marketplacePlugin();
    Path format = Files.createDirectories(dir.resolve("market/format/.claude-plugin"));
    Files.writeString(format.resolve("plugin.json"), "{}");
    Path folder = Files.createDirectories(dir.resolve("home")).resolve(".berth/plugins");
    List<AgentLaunch.Plugin> plugins =
        List.of(
            new AgentLaunch.Plugin("lint", lint.toString()),
            new AgentLaunch.Plugin("format", format.getParent().toString()));
    PluginCopies.copy(plugins, folder);
    Files.writeString(lint.resolve("skills/a/SKILL.md"), "changed");
    dev.berth.agent.archive.Trees.delete(format.getParent());

    assertThatThrownBy(() -> refresh(plugins, folder))
        .isInstanceOfSatisfying(
            HostRefusal.class, r -> assertThat(r.reason()).isEqualTo("PLUGIN_UNAVAILABLE"))
        .hasMessageContaining("[format]");

    assertThat(folder.resolve("lint/skills/a/SKILL.md")).hasContent("skill");
    assertThat(names(folder)).containsExactly("format", "lint");
  }

  @Test
  void aPluginFolderTheSessionLinkedToAHostDirectoryIsRefusedAndNothingIsWrittenThrough()
      throws IOException {
    Path source = marketplacePlugin();
    Path hostEtc = Files.createDirectories(dir.resolve("host-etc"));
    Files.writeString(hostEtc.resolve("passwd"), "root:x:0:0");
    List<AgentLaunch.Plugin> plugins = List.of(new AgentLaunch.Plugin("lint", source.toString()));
    for (String linked : List.of("plugins", "plugins.staging", "plugins.old")) {
      Path home = Files.createDirectories(dir.resolve("home-" + linked));
      Files.createDirectories(home.resolve(".berth"));
      Files.createSymbolicLink(home.resolve(".berth").resolve(linked), hostEtc);

      assertThatThrownBy(() -> refresh(plugins, home.resolve(".berth/plugins")))
          .as(linked)
          .isInstanceOfSatisfying(
              HostRefusal.class, r -> assertThat(r.reason()).isEqualTo("PLUGINS_FOLDER_UNSAFE"));

      assertThat(names(hostEtc)).as(linked).containsExactly("passwd");
      assertThat(hostEtc.resolve("passwd")).hasContent("root:x:0:0");
    }
  }

  @Test
  void aCopyTheSessionTurnedIntoLinksIsReplacedWithoutTouchingWhatTheLinksPointAt()
      throws IOException {
    Path source = marketplacePlugin();
    Path folder = Files.createDirectories(dir.resolve("home")).resolve(".berth/plugins");
    List<AgentLaunch.Plugin> plugins = List.of(new AgentLaunch.Plugin("lint", source.toString()));
    Path victim = Files.createDirectories(dir.resolve("node-data"));
    Files.writeString(victim.resolve("admin.token"), "secret");
    PluginCopies.copy(plugins, folder);
    // The copy's skills are a link to the node's data, and a second plugin's copy is one too.
    dev.berth.agent.archive.Trees.delete(folder.resolve("lint/skills"));
    Files.createSymbolicLink(folder.resolve("lint/skills"), victim);
    Path other = marketplacePluginNamed("other");
    Files.createSymbolicLink(folder.resolve("other"), victim);
    List<AgentLaunch.Plugin> both =
        List.of(plugins.getFirst(), new AgentLaunch.Plugin("other", other.toString()));

    assertThat(refresh(both, folder)).containsExactly("lint", "other");

    assertThat(names(victim)).containsExactly("admin.token");
    assertThat(victim.resolve("admin.token")).hasContent("secret");
    assertThat(Files.isSymbolicLink(folder.resolve("lint/skills"))).isFalse();
    assertThat(folder.resolve("lint/skills/a/SKILL.md")).hasContent("skill");
    assertThat(Files.isSymbolicLink(folder.resolve("other"))).isFalse();
    assertThat(folder.resolve("other/.claude-plugin/plugin.json")).exists();
  }

  @Test
  void copiesARefreshCutShortLeftBehindAreClearedByTheNext() throws IOException {
    Path source = marketplacePlugin();
    Path folder = Files.createDirectories(dir.resolve("home")).resolve(".berth/plugins");
    List<AgentLaunch.Plugin> plugins = List.of(new AgentLaunch.Plugin("lint", source.toString()));
    PluginCopies.copy(plugins, folder);
    Files.createDirectories(folder.resolveSibling("plugins.staging/lint/half"));
    Files.createDirectories(folder.resolveSibling("plugins.old/lint"));

    assertThat(refresh(plugins, folder)).containsExactly("lint");

    assertThat(names(folder.getParent())).containsExactly("plugins");
    assertThat(folder.resolve("lint/half")).doesNotExist();
  }

  private Path marketplacePluginNamed(String name) throws IOException {
    Path plugin =
        Files.createDirectories(dir.resolve("market").resolve(name).resolve(".claude-plugin"));
    Files.writeString(plugin.resolve("plugin.json"), "{\"name\":\"" + name + "\"}");
    return plugin.getParent();
  }
}
