package dev.berth.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code berth server}'s settings from the command line, {@code BERTH_*} variables and the YAML
 * file of {@code --config}, in that order; a file the server cannot use stops it with the reason.
 */
class ServerDefaultsTest {

  @TempDir Path dir;

  /** The server command as picocli parsed {@code args}, with {@code env} as the environment. */
  private CommandSpec parsed(Map<String, String> env, String... args) {
    CliEnvironment environment =
        new CliEnvironment(
            env,
            new ByteArrayInputStream(new byte[0]),
            new ByteArrayOutputStream(),
            InstantSource.system(),
            () -> {
              throw new IllegalStateException("no terminal");
            },
            false);
    CommandLine cli = BerthCommand.commandLine(environment, args);
    CommandLine.ParseResult result = cli.parseArgs(args);
    CommandSpec server = result.subcommand().commandSpec();
    ((ServerDefaults) server.commandLine().getDefaultValueProvider())
        .check(server, java.util.Optional.ofNullable(server.findOption("--config").getValue()));
    return server;
  }

  private static Object value(CommandSpec server, String option) {
    return server.findOption(option).getValue();
  }

  @Test
  void aFlagWinsOverItsVariableWhichWinsOverTheFileWhichWinsOverTheDefault() throws Exception {
    Path file = dir.resolve("berth.yaml");
    Files.writeString(file, "idle-after: 3m\nsuspend-after: 2h\nmax-busy: 5h\nno-suspend: true\n");
    CommandSpec server =
        parsed(
            Map.of("BERTH_SUSPEND_AFTER", "90m", "BERTH_MAX_BUSY", "6h"),
            "server",
            "--config",
            file.toString(),
            "--max-busy",
            "7h");
    assertThat(value(server, "--idle-after")).isEqualTo(Duration.ofMinutes(3));
    assertThat(value(server, "--suspend-after")).isEqualTo(Duration.ofMinutes(90));
    assertThat(value(server, "--max-busy")).isEqualTo(Duration.ofHours(7));
    assertThat(value(server, "--no-suspend")).isEqualTo(true);
    assertThat(value(server, "--idle-scan")).isEqualTo(Duration.ofSeconds(30));
  }

  @Test
  void aRepeatableFlagTakesAYamlListOrCommasInItsVariable() throws Exception {
    Path file = dir.resolve("berth.yaml");
    Files.writeString(file, "sandbox-bind:\n  - /opt/a:ro\n  - /opt/b\n");
    assertThat(value(parsed(Map.of(), "server", "--config=" + file), "--sandbox-bind"))
        .isEqualTo(List.of("/opt/a:ro", "/opt/b"));
    assertThat(
            value(
                parsed(Map.of("BERTH_SANDBOX_MASK", "/etc/a,/etc/b"), "server"), "--sandbox-mask"))
        .isEqualTo(List.of("/etc/a", "/etc/b"));
  }

  @Test
  void aFlagGivenOnTheCommandLineIsSetWhateverItsVariableSays() {
    for (String given : List.of("true", "false")) {
      CommandSpec server =
          parsed(
              Map.of("BERTH_NO_SUSPEND", given, "BERTH_REQUIRE_ISOLATION", given),
              "server",
              "--no-suspend",
              "--require-isolation");
      assertThat(value(server, "--no-suspend")).as("BERTH_NO_SUSPEND=" + given).isEqualTo(true);
      assertThat(value(server, "--require-isolation")).isEqualTo(true);
    }
    assertThat(value(parsed(Map.of("BERTH_NO_SUSPEND", "true"), "server"), "--no-suspend"))
        .isEqualTo(true);
  }

  @Test
  void helpNeverShowsAStoreUrlAVariableGave() {
    CliHarness help = new CliHarness(dir);
    help.variables.put("BERTH_STORE", "postgres://berth:hunter2-secret@db.example/berth");
    help.variables.put("BERTH_ARCHIVE", "s3://bucket/prefix?endpoint=http://user:pw-secret@x");
    assertThat(help.run("server", "--help")).isZero();
    assertThat(help.out.toString()).contains("--store").doesNotContain("secret");
  }

  @Test
  void theFileCanBeNamedByBerthConfig() throws Exception {
    Path file = dir.resolve("berth.yaml");
    Files.writeString(file, "log-format: json\n");
    assertThat(value(parsed(Map.of("BERTH_CONFIG", file.toString()), "server"), "--log-format"))
        .isEqualTo("json");
  }

  @Test
  void aKeyThatNamesNoFlagIsRefusedWithTheKeyAndTheFileNamed() throws Exception {
    Path file = dir.resolve("berth.yaml");
    Files.writeString(file, "idle-after: 3m\nidle-afer: 4m\n");
    assertThatThrownBy(() -> parsed(Map.of(), "server", "--config", file.toString()))
        .isInstanceOf(CommandLine.ParameterException.class)
        .hasMessageContaining("idle-afer")
        .hasMessageContaining(file.toString());
  }

  @Test
  void aFileThatIsMissingOrNotAMappingIsRefusedWithItsReason() throws Exception {
    assertThatThrownBy(() -> parsed(Map.of(), "server", "--config", dir + "/missing.yaml"))
        .isInstanceOf(CommandLine.ParameterException.class)
        .hasMessageContaining("cannot read the configuration file");
    Path list = dir.resolve("list.yaml");
    Files.writeString(list, "- idle-after\n");
    assertThatThrownBy(() -> parsed(Map.of(), "server", "--config", list.toString()))
        .hasMessageContaining("must be a mapping");
    Path nested = dir.resolve("nested.yaml");
    Files.writeString(nested, "listen:\n  host: x\n");
    assertThatThrownBy(() -> parsed(Map.of(), "server", "--config", nested.toString()))
        .hasMessageContaining("gives listen a mapping");
  }

  @Test
  void aValueOfTheWrongKindFromTheFileOrAVariableIsRefusedNamingTheOption() throws Exception {
    Path file = dir.resolve("berth.yaml");
    Files.writeString(file, "idle-after: soon\n");
    assertThatThrownBy(() -> parsed(Map.of(), "server", "--config", file.toString()))
        .isInstanceOf(CommandLine.ParameterException.class)
        .hasMessageContaining("--idle-after")
        .hasMessageContaining("soon");
    assertThatThrownBy(() -> parsed(Map.of("BERTH_MAX_BUSY", "forever"), "server"))
        .isInstanceOf(CommandLine.ParameterException.class)
        .hasMessageContaining("--max-busy")
        .hasMessageContaining("forever");
  }
}
