package dev.berth.agent.host;

import static org.assertj.core.api.Assertions.assertThat;

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
}
