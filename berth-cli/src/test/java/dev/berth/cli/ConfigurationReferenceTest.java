package dev.berth.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import picocli.CommandLine.Model.OptionSpec;

/** docs/configuration.md is what {@code berth server}'s options say, row for row. */
class ConfigurationReferenceTest {

  private static final Path DOC = Path.of("..", "docs", "configuration.md");

  @Test
  void theCommittedReferenceIsTheOneTheOptionsGenerate() throws Exception {
    assertThat(Files.readString(DOC))
        .as("docs/configuration.md is out of date: run make docs and commit it")
        .isEqualTo(ConfigurationReference.markdown());
  }

  @Test
  void everyFlagOfTheServerHasItsRowWithItsVariableAndItsFileKey() throws Exception {
    String doc = Files.readString(DOC);
    for (OptionSpec option : ConfigurationReference.serverOptions()) {
      assertThat(doc)
          .as("the row of %s", option.longestName())
          .contains("| `" + option.longestName())
          .contains("| `" + ServerDefaults.variable(option) + "` | `" + ServerDefaults.key(option));
    }
    assertThat(ConfigurationReference.serverOptions())
        .extracting(OptionSpec::longestName)
        .contains("--listen", "--idle-after", "--log-format", "--metrics-without-token")
        .doesNotContain("--help", "--config");
  }
}
