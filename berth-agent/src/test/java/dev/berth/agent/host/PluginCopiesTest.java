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

    List<Path> created = PluginCopies.copy(plugins, folder, work());

    assertThat(folder.resolve("lint/skills/a/SKILL.md")).hasContent("skill");
    assertThat(created)
        .contains(folder.getParent(), folder, folder.resolve("lint/.claude-plugin/plugin.json"));
    Files.writeString(source.resolve("skills/a/SKILL.md"), "changed in the marketplace");
    assertThat(PluginCopies.copy(plugins, folder, work())).isEmpty();
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
            home.resolve(".berth/plugins"),
            work());

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

    PluginCopies.copy(List.of(new AgentLaunch.Plugin("lint", source.toString())), folder, work());

    assertThat(folder.resolve("lint/leak")).doesNotExist();
    assertThat(Files.exists(folder.resolve("lint/leak"), LinkOption.NOFOLLOW_LINKS)).isFalse();
    assertThat(folder.resolve("lint/.claude-plugin/plugin.json")).exists();
  }

  // ---- refresh ---------------------------------------------------------------------------------

  private final List<Path> owned = new java.util.ArrayList<>();

  /** The runtime's work area: beside the home, on its filesystem, as in a runtime's state. */
  private Path work() {
    return dir.resolve("state").resolve(PluginCopies.WORK);
  }

  private List<String> refresh(List<AgentLaunch.Plugin> plugins, Path folder) {
    try (PluginRefresh refresh =
        PluginRefresh.prepare(plugins, folder, work(), "r-1", owned::addAll)) {
      return refresh.swap();
    }
  }

  private static List<String> names(Path dir) throws IOException {
    try (var entries = Files.list(dir)) {
      return entries.map(p -> p.getFileName().toString()).sorted().toList();
    }
  }

  private Path marketplacePluginNamed(String name) throws IOException {
    Path plugin =
        Files.createDirectories(dir.resolve("market").resolve(name).resolve(".claude-plugin"));
    Files.writeString(plugin.resolve("plugin.json"), "{\"name\":\"" + name + "\"}");
    return plugin.getParent();
  }

  @Test
  void aRefreshReplacesTheCopyWithThePluginAsTheMarketplaceHoldsItNowAndLeavesNothingBehind()
      throws IOException {
    Path source = dir.resolve("market/lint");
    Path folder = dir.resolve("home/.berth/plugins");
    List<AgentLaunch.Plugin> plugins = lintCopiedInto(folder);
    Files.writeString(source.resolve("skills/a/SKILL.md"), "changed in the marketplace");
    Files.writeString(source.resolve("skills/a/NEW.md"), "new");
    Files.writeString(folder.resolve("lint/skills/a/mine.txt"), "the session's own, in the copy");

    assertThat(refresh(plugins, folder)).containsExactly("lint");

    assertThat(folder.resolve("lint/skills/a/SKILL.md")).hasContent("changed in the marketplace");
    assertThat(names(folder.resolve("lint/skills/a"))).containsExactly("NEW.md", "SKILL.md");
    assertThat(names(folder)).containsExactly("lint");
    assertThat(names(folder.getParent())).containsExactly("plugins");
    assertThat(work()).doesNotExist();
    assertThat(owned).contains(work().resolve("staging/lint/skills/a/NEW.md"));
  }

  @Test
  void aRefreshAddsTheCopyOfAPluginTheFirstStartDidNotFind() throws IOException {
    Path source = marketplacePlugin();
    Path folder = Files.createDirectories(dir.resolve("home")).resolve(".berth/plugins");

    assertThat(refresh(List.of(new AgentLaunch.Plugin("lint", source.toString())), folder))
        .containsExactly("lint");

    assertThat(folder.resolve("lint/.claude-plugin/plugin.json")).exists();
    assertThat(owned).contains(folder.getParent(), folder);
  }

  @Test
  void aPluginGoneFromTheMarketplaceRefusesTheRefreshAndEveryCopyStaysAsItWas() throws IOException {
    Path format = dir.resolve("market/format");
    Path folder = dir.resolve("home/.berth/plugins");
    List<AgentLaunch.Plugin> plugins = twoPluginsCopiedThenChanged(folder);
    dev.berth.agent.archive.Trees.delete(format);

    assertThatThrownBy(() -> refresh(plugins, folder))
        .isInstanceOfSatisfying(
            HostRefusal.class,
            r ->
                assertThat(r.reason())
                    .isEqualTo(dev.berth.protocol.problem.AgentReason.PLUGIN_UNAVAILABLE))
        .hasMessageContaining("[format]");

    assertThat(folder.resolve("lint/skills/a/SKILL.md")).hasContent("skill");
    assertThat(names(folder)).containsExactly("format", "lint");
    assertThat(work()).doesNotExist();
  }

  @Test
  void aPluginFolderTheSessionLinkedToAHostDirectoryIsRefusedAndNothingIsWrittenAnywhere()
      throws IOException {
    Path source = marketplacePlugin();
    Path hostEtc = Files.createDirectories(dir.resolve("host-etc"));
    Files.writeString(hostEtc.resolve("passwd"), "root:x:0:0");
    List<AgentLaunch.Plugin> plugins = List.of(new AgentLaunch.Plugin("lint", source.toString()));
    for (String linked : List.of(".berth", ".berth/plugins")) {
      Path home = Files.createDirectories(dir.resolve("home-" + linked.replace('/', '-')));
      Files.createDirectories(home.resolve(linked).getParent());
      Files.createSymbolicLink(home.resolve(linked), hostEtc);
      List<String> before = names(home.resolve(linked).getParent());

      assertThatThrownBy(() -> refresh(plugins, home.resolve(".berth/plugins")))
          .as(linked)
          .isInstanceOfSatisfying(
              HostRefusal.class,
              r ->
                  assertThat(r.reason())
                      .isEqualTo(dev.berth.protocol.problem.AgentReason.PLUGINS_FOLDER_UNSAFE))
          .hasMessageContaining("~/.berth/plugins")
          .hasMessageNotContaining(home.toString());

      assertThat(names(hostEtc)).as(linked).containsExactly("passwd");
      assertThat(hostEtc.resolve("passwd")).hasContent("root:x:0:0");
      assertThat(names(home.resolve(linked).getParent())).as(linked).isEqualTo(before);
      assertThat(work()).doesNotExist();
    }
  }

  @Test
  void aCopyTheSessionTurnedIntoLinksIsReplacedWithoutTouchingWhatTheLinksPointAt()
      throws IOException {
    Path folder = dir.resolve("home/.berth/plugins");
    List<AgentLaunch.Plugin> plugins = lintCopiedInto(folder);
    Path victim = Files.createDirectories(dir.resolve("node-data"));
    Files.writeString(victim.resolve("admin.token"), "secret");
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

  /** {@code lint} of the marketplace, copied into {@code folder} as a first start does. */
  private List<AgentLaunch.Plugin> lintCopiedInto(Path folder) throws IOException {
    Path source = marketplacePlugin();
    Files.createDirectories(dir.resolve("home"));
    List<AgentLaunch.Plugin> plugins = List.of(new AgentLaunch.Plugin("lint", source.toString()));
    PluginCopies.copy(plugins, folder, work());
    return plugins;
  }

  /**
   * {@code lint} and {@code format}, copied into {@code folder}; then lint's skill changes and
   * format gains a file.
   */
  private List<AgentLaunch.Plugin> twoPluginsCopiedThenChanged(Path folder) throws IOException {
    Path lint = marketplacePlugin();
    Path format = marketplacePluginNamed("format");
    Files.createDirectories(dir.resolve("home"));
    List<AgentLaunch.Plugin> plugins =
        List.of(
            new AgentLaunch.Plugin("lint", lint.toString()),
            new AgentLaunch.Plugin("format", format.toString()));
    PluginCopies.copy(plugins, folder, work());
    Files.writeString(lint.resolve("skills/a/SKILL.md"), "changed");
    Files.writeString(format.resolve("NEW.md"), "new");
    return plugins;
  }

  /** Renames as the swap makes them, the {@code failing}th ones (counted from 1) failing. */
  private static PluginCopies.Move failingAt(Integer... failing) {
    List<Integer> fails = List.of(failing);
    int[] calls = {0};
    return (from, to) -> {
      if (fails.contains(++calls[0])) {
        throw new IOException("injected: rename " + calls[0] + " fails");
      }
      PluginCopies.Move.ATOMIC.move(from, to);
    };
  }

  @Test
  void aRenameThatFailsMidwayPutsBackEveryCopyTheSwapHadMoved() throws IOException {
    Path folder = dir.resolve("home/.berth/plugins");
    List<AgentLaunch.Plugin> plugins = twoPluginsCopiedThenChanged(folder);
    // Two renames a plugin (old copy out, new one in): the 3rd is format's first, the 4th its
    // second.
    for (int failing : new int[] {1, 2, 3, 4}) {
      try (PluginRefresh refresh =
          PluginRefresh.prepare(
              plugins, folder, work(), "r-1", owned::addAll, failingAt(failing))) {
        assertThatThrownBy(refresh::swap)
            .as("rename %d fails", failing)
            .hasMessageContaining("every copy is as it was");
      }

      assertThat(folder.resolve("lint/skills/a/SKILL.md")).as("%d", failing).hasContent("skill");
      assertThat(folder.resolve("format/NEW.md")).as("%d", failing).doesNotExist();
      assertThat(names(folder)).containsExactly("format", "lint");
      assertThat(work()).doesNotExist();
    }
  }

  @Test
  void aCopyAFailedSwapCouldNotPutBackIsKeptForTheNextRefreshOrStartToPutBack() throws IOException {
    Path folder = dir.resolve("home/.berth/plugins");
    List<AgentLaunch.Plugin> plugins = twoPluginsCopiedThenChanged(folder);
    // Lint's new copy cannot move in (rename 2), nor its old one back (rename 3).
    for (boolean byRefresh : new boolean[] {true, false}) {
      try (PluginRefresh refresh =
          PluginRefresh.prepare(plugins, folder, work(), "r-1", owned::addAll, failingAt(2, 3))) {
        assertThatThrownBy(refresh::swap)
            .hasMessageContaining("kept for the next refresh or start");
      }
      assertThat(work().resolve("old/lint/skills/a/SKILL.md")).hasContent("skill");
      assertThat(folder.resolve("lint")).doesNotExist();

      if (byRefresh) {
        assertThat(refresh(plugins, folder)).containsExactly("lint", "format");
        assertThat(folder.resolve("lint/skills/a/SKILL.md")).hasContent("changed");
        Files.writeString(folder.resolve("lint/skills/a/SKILL.md"), "skill");
      } else {
        PluginCopies.copy(plugins, folder, work());
        assertThat(folder.resolve("lint/skills/a/SKILL.md")).hasContent("skill");
      }
      assertThat(work()).doesNotExist();
    }
  }

  @Test
  void aStartAfterACrashBetweenTheRenamesPutsTheOldCopyBackAndDeletesTheWorkArea()
      throws IOException {
    Path source = dir.resolve("market/lint");
    Path folder = dir.resolve("home/.berth/plugins");
    List<AgentLaunch.Plugin> plugins = lintCopiedInto(folder);
    Files.writeString(source.resolve("skills/a/SKILL.md"), "changed");
    PluginRefresh.prepare(plugins, folder, work(), "r-1", owned::addAll);
    // The node died after the swap's first rename: the old copy is in the work area only.
    Files.move(folder.resolve("lint"), work().resolve("old/lint"));
    // ... and the marketplace lost the plugin meanwhile: the start must not fail for it.
    dev.berth.agent.archive.Trees.delete(source);

    assertThat(PluginCopies.copy(plugins, folder, work())).isEmpty();

    assertThat(folder.resolve("lint/skills/a/SKILL.md")).hasContent("skill");
    assertThat(work()).doesNotExist();
  }

  @Test
  void aStartAfterACrashMidwayPutsBackEveryOldCopyAlsoOfAPluginAlreadySwapped() throws IOException {
    Path folder = dir.resolve("home/.berth/plugins");
    List<AgentLaunch.Plugin> plugins = twoPluginsCopiedThenChanged(folder);
    PluginRefresh.prepare(plugins, folder, work(), "r-1", owned::addAll);
    // The node died after lint was swapped whole and format's old copy was moved out.
    Files.move(folder.resolve("lint"), work().resolve("old/lint"));
    Files.move(work().resolve("staging/lint"), folder.resolve("lint"));
    Files.move(folder.resolve("format"), work().resolve("old/format"));

    PluginCopies.copy(plugins, folder, work());

    assertThat(folder.resolve("lint/skills/a/SKILL.md")).hasContent("skill");
    assertThat(folder.resolve("format/NEW.md")).doesNotExist();
    assertThat(names(folder)).containsExactly("format", "lint");
    assertThat(work()).doesNotExist();
  }

  @Test
  void aStartAfterACrashBehindAWholeSwapKeepsTheNewCopies() throws IOException {
    Path folder = dir.resolve("home/.berth/plugins");
    List<AgentLaunch.Plugin> plugins = twoPluginsCopiedThenChanged(folder);
    // Swapped whole, then the node died before it deleted the old copies.
    assertThat(PluginRefresh.prepare(plugins, folder, work(), "r-1", owned::addAll).swap())
        .containsExactly("lint", "format");

    PluginCopies.copy(plugins, folder, work());

    assertThat(folder.resolve("lint/skills/a/SKILL.md")).hasContent("changed");
    assertThat(work()).doesNotExist();
  }

  @Test
  void aFirstStartWithoutAPluginTheMarketplaceLostStartsWithTheOthers() throws IOException {
    Path lint = marketplacePlugin();
    Path folder = Files.createDirectories(dir.resolve("home")).resolve(".berth/plugins");
    List<AgentLaunch.Plugin> plugins =
        List.of(
            new AgentLaunch.Plugin("gone", dir.resolve("market/gone").toString()),
            new AgentLaunch.Plugin("lint", lint.toString()));

    PluginCopies.copy(plugins, folder, work());

    assertThat(names(folder)).containsExactly("lint");
  }
}
