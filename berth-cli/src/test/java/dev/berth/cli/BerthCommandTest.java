package dev.berth.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class BerthCommandTest {

  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  @TempDir Path work;

  private int run(String... args) {
    CommandLine cli = BerthCommand.commandLine(CliEnvironment.system());
    cli.setOut(new PrintWriter(out, true));
    cli.setErr(new PrintWriter(err, true));
    return cli.execute(args);
  }

  @Test
  void helpExitsZeroAndListsTheServerCommand() {
    assertThat(run("--help")).isZero();
    assertThat(out.toString()).contains("Usage: berth").contains("server");
  }

  @Test
  void helpListsTheNodeAndAgentCommands() {
    assertThat(run("--help")).isZero();
    assertThat(out.toString()).contains("node").contains("agent");
  }

  @Test
  void theAgentRefusesToStartWithoutItsToken() {
    // The test JVM's environment has no BERTH_AGENT_TOKEN.
    assertThat(System.getenv(SessionAgentCommand.TOKEN_VARIABLE)).isNull();

    int code = run("agent", "--session", "a".repeat(32), "--installation", "i");

    assertThat(code).isEqualTo(2);
    assertThat(err.toString()).contains("BERTH_AGENT_TOKEN").contains("unset");
  }

  @Test
  void aBadDurationIsAUsageErrorThatShowsTheForm() {
    assertThat(run("node", "--disconnect-grace", "soon")).isEqualTo(2);
    assertThat(err.toString()).contains("'soon'").contains("15m");
  }

  @Test
  void durationsAreReadAsPeopleWriteThem() {
    DurationConverter durations = new DurationConverter();
    assertThat(durations.convert("500ms")).isEqualTo(java.time.Duration.ofMillis(500));
    assertThat(durations.convert("15m")).isEqualTo(java.time.Duration.ofMinutes(15));
    assertThat(durations.convert("7d")).isEqualTo(java.time.Duration.ofDays(7));
    assertThat(durations.convert("PT10M")).isEqualTo(java.time.Duration.ofMinutes(10));
  }

  @Test
  void anUnknownDisconnectPolicyIsAUsageError() {
    assertThat(run("node", "--disconnect-policy", "maybe")).isEqualTo(2);
    assertThat(err.toString()).contains("maybe");
  }

  @Test
  void helpListsTheClientCommands() {
    assertThat(run("--help")).isZero();
    assertThat(out.toString())
        .contains("login")
        .contains("sessions")
        .contains("attach")
        .contains("exec")
        .contains("logs")
        .contains("switch")
        .contains("snapshot");
  }

  @Test
  void aGroupWithoutItsSubcommandOrAnExecWithoutCommandIsAUsageError() {
    assertThat(run("sessions")).isEqualTo(2);
    assertThat(err.toString()).contains("create").contains("list");
    assertThat(run("exec", "0123456789abcdef0123456789abcdef")).isEqualTo(2);
    assertThat(err.toString()).contains("COMMAND");
  }

  @Test
  void versionExitsZero() {
    assertThat(run("--version")).isZero();
    assertThat(out.toString()).startsWith("berth ");
  }

  @Test
  void unknownCommandIsAUsageError() {
    assertThat(run("nosuch")).isEqualTo(2);
    assertThat(err.toString()).contains("nosuch");
  }

  @Test
  void badListenValueIsAUsageErrorNamingTheValue() {
    assertThat(run("server", "--listen", "localhost:http")).isEqualTo(2);
    assertThat(err.toString()).contains("--listen").contains("localhost:http");
  }

  @Test
  void listenWithoutPortIsAUsageError() {
    assertThat(run("server", "--listen", "127.0.0.1")).isEqualTo(2);
    assertThat(err.toString()).contains("'127.0.0.1'");
  }

  @Test
  void aServerOnAWorldReadableDataDirectoryRefusesToStartSayingHowToFixIt() throws Exception {
    Path dataDir = Files.createDirectory(work.resolve("data"));
    Files.setPosixFilePermissions(dataDir, PosixFilePermissions.fromString("rwxr-xr-x"));

    int code = run("server", "--listen", "127.0.0.1:0", "--data-dir", dataDir.toString());

    assertThat(code).isEqualTo(1);
    assertThat(err.toString())
        .startsWith("berth: data directory " + dataDir + " has mode rwxr-xr-x (0755)")
        .contains("run: chmod 700 " + dataDir);
  }

  @Test
  void aNodeOnAGroupReadableStateDirectoryRefusesToStartSayingHowToFixIt() throws Exception {
    Path stateDir = Files.createDirectory(work.resolve("node"));
    Files.setPosixFilePermissions(stateDir, PosixFilePermissions.fromString("rwxr-x---"));

    int code = run("node", "--state-dir", stateDir.toString());

    assertThat(code).isEqualTo(1);
    assertThat(err.toString())
        .startsWith("berth: node state directory " + stateDir + " has mode rwxr-x---")
        .contains("run: chmod 700 " + stateDir);
  }

  @Test
  void parsesListenAddresses() {
    assertThat(ListenAddress.parse("127.0.0.1:8080"))
        .isEqualTo(new ListenAddress("127.0.0.1", 8080));
    assertThat(ListenAddress.parse("0.0.0.0:0")).isEqualTo(new ListenAddress("0.0.0.0", 0));
    assertThat(ListenAddress.parse("[::1]:9000")).isEqualTo(new ListenAddress("::1", 9000));
    assertThat(new ListenAddress("::1", 9000).authority()).isEqualTo("[::1]:9000");
    assertThatThrownBy(() -> ListenAddress.parse("host:70000"))
        .hasMessageContaining("'host:70000'");
    assertThatThrownBy(() -> ListenAddress.parse(":8080")).hasMessageContaining("':8080'");
    assertThatThrownBy(() -> ListenAddress.parse("::1:8080")).hasMessageContaining("brackets");
  }
}
