package dev.berth.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.protocol.node.NodeInfo;
import dev.berth.server.BerthServer;
import dev.berth.server.ServerConfig;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A server that cannot start says why in one line and leaves no admin token behind; {@code berth
 * node status} and {@code berth node stop} look after the node a real server started.
 */
class ServerStartAndNodeCommandsTest {

  private static final String ADMIN = "node-commands-test-admin-token-0123456789";

  @TempDir Path home;
  @TempDir Path work;

  private CliHarness run(int expected, String... args) {
    CliHarness cli = new CliHarness(home);
    assertThat(cli.run(args)).as(String.join(" ", args) + ": " + cli.err).isEqualTo(expected);
    return cli;
  }

  private static void assertOneClearLine(CliHarness cli, String expected) {
    String err = cli.err.toString();
    assertThat(err.lines()).hasSize(1);
    assertThat(err).startsWith("berth: ").contains(expected).doesNotContain("Exception");
  }

  @Test
  void aStartOnAnAddressInUseIsOneLineAndMintsNoAdminToken() throws Exception {
    Path data = work.resolve("data");
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      CliHarness cli =
          run(
              1,
              "server",
              "--listen",
              "127.0.0.1:" + taken.getLocalPort(),
              "--data-dir",
              data.toString());
      assertOneClearLine(cli, "give --listen another address");
    }
    assertThat(data.resolve("admin.token")).doesNotExist();
  }

  @Test
  void aStartOnADataDirectoryAnotherServerHoldsIsOneLineAndMintsNoAdminToken() throws Exception {
    Path data = work.resolve("held");
    Files.createDirectories(data);
    Files.setPosixFilePermissions(
        data, java.nio.file.attribute.PosixFilePermissions.fromString("rwx------"));
    try (FileChannel channel =
            FileChannel.open(
                data.resolve("server.lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        FileLock held = channel.lock()) {
      assertThat(held.isValid()).isTrue();
      CliHarness cli = run(1, "server", "--listen", "127.0.0.1:0", "--data-dir", data.toString());
      assertOneClearLine(cli, "another berth server runs on " + data);
    }
    assertThat(data.resolve("admin.token")).doesNotExist();
  }

  @Test
  void aStartWithATooShortAdminTokenIsOneLine() {
    CliHarness cli = new CliHarness(home);
    cli.variables.put("BERTH_ADMIN_TOKEN", "short");
    assertThat(
            cli.run(
                "server", "--listen", "127.0.0.1:0", "--data-dir", work.resolve("d").toString()))
        .isEqualTo(1);
    assertOneClearLine(cli, "BERTH_ADMIN_TOKEN");
  }

  @Test
  void nodeStatusAndStopSayThereIsNoNodeWhenNoneRuns() {
    Path data = work.resolve("empty");
    assertThat(run(3, "node", "status", "--data-dir", data.toString()).out.toString())
        .contains("no node runs on " + data.resolve("node"));
    assertThat(run(0, "node", "stop", "--data-dir", data.toString()).out.toString())
        .contains("nothing to stop");
  }

  @Test
  void nodeStopRefusesWhileTheNodeHostsSessionsAndStopsItWithForce() throws Exception {
    Path data = work.resolve("served");
    try (BerthServer server =
        new BerthServer(new ServerConfig("127.0.0.1", 0, data).withAdminToken(Optional.of(ADMIN)))
            .start()) {
      CliHarness create = new CliHarness(home);
      create.variables.put("BERTH_URL", "http://127.0.0.1:" + server.port());
      create.variables.put("BERTH_TOKEN", ADMIN);
      assertThat(create.run("sessions", "create", "kept", "-q")).as(create.err.toString()).isZero();
      assertThat(create.out.toString().strip()).matches("[0-9a-f]{32}");
    }
    NodeInfo node = NodeInfo.read(data.resolve("node")).orElseThrow();
    try {
      assertThat(run(0, "node", "status", "--data-dir", data.toString()).out.toString())
          .contains("node (pid " + node.pid() + ")")
          .contains("1 session");
      CliHarness refused = run(2, "node", "stop", "--data-dir", data.toString());
      assertOneClearLine(refused, "hosts 1 session");
      assertThat(refused.err.toString()).contains("--force");
      assertThat(node.processAlive()).isTrue();

      assertThat(run(0, "node", "stop", "--data-dir", data.toString(), "--force").out.toString())
          .contains("stopped");
      assertThat(node.processAlive()).isFalse();
    } finally {
      ProcessHandle.of(node.pid())
          .ifPresent(
              p -> {
                p.destroyForcibly();
                p.onExit().orTimeout(30, TimeUnit.SECONDS).join();
              });
    }
  }
}
