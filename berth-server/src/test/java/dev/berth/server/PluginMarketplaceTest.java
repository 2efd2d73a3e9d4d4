package dev.berth.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.berth.core.session.PluginName;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PluginMarketplaceTest {

  @TempDir Path dir;

  private void plugin(String name) throws IOException {
    Files.createDirectories(dir.resolve(name).resolve(".claude-plugin"));
    Files.writeString(dir.resolve(name).resolve(".claude-plugin/plugin.json"), "{}");
  }

  @Test
  void eachPluginDirectoryIsOfferedByItsNameAndDotFilesAreIgnored() throws IOException {
    plugin("lint");
    plugin("docs");
    Files.createDirectories(dir.resolve(".git"));

    PluginMarketplace marketplace = PluginMarketplace.load(dir);

    assertThat(marketplace.plugins())
        .containsExactly(new PluginName("docs"), new PluginName("lint"));
    assertThat(marketplace.path(new PluginName("lint"))).isEqualTo(dir.resolve("lint"));
    assertThatThrownBy(() -> marketplace.path(new PluginName("other")))
        .hasMessageContaining("not in the marketplace");
  }

  @Test
  void anEntryThatIsNotAPluginStopsTheStartNamingIt() throws IOException {
    plugin("lint");
    Files.createDirectories(dir.resolve("half"));

    assertThatThrownBy(() -> PluginMarketplace.load(dir))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("half is not a plugin");
  }

  @Test
  void aLinkOrABadNameIsNoPlugin() throws IOException {
    plugin("lint");
    Files.createSymbolicLink(dir.resolve("alias"), dir.resolve("lint"));
    assertThatThrownBy(() -> PluginMarketplace.load(dir)).hasMessageContaining("alias");
    Files.delete(dir.resolve("alias"));
    plugin("Upper");
    assertThatThrownBy(() -> PluginMarketplace.load(dir)).hasMessageContaining("plugin name");
  }

  @Test
  void noMarketplaceOffersNothing() {
    assertThat(PluginMarketplace.none().configured()).isFalse();
    assertThat(PluginMarketplace.none().plugins()).isEmpty();
    assertThatThrownBy(() -> PluginMarketplace.load(dir.resolve("missing")))
        .hasMessageContaining("is not a directory");
  }
}
