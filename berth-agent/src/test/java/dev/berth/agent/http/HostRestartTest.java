package dev.berth.agent.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.berth.agent.host.HostConfig;
import dev.berth.agent.host.SessionHost;
import dev.berth.agent.node.NodeAlreadyRunningException;
import dev.berth.agent.node.NodeDaemon;
import dev.berth.core.operation.OperationId;
import dev.berth.core.operation.OperationType;
import dev.berth.core.session.SessionId;
import dev.berth.protocol.node.NodeInfo;
import dev.berth.protocol.node.NodeToken;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/** What a session host finds on disk after a restart, and the one-node-per-directory lock. */
class HostRestartTest {

  private static final String TOKEN = "t".repeat(64);
  private static final String A = "a".repeat(32);
  private static final Duration WAIT = Duration.ofSeconds(10);

  @TempDir Path root;
  private SessionHost host;
  private AgentHttpServer server;
  private AgentApi api;
  private final List<NodeDaemon> nodes = new ArrayList<>();
  private final List<OtherHost> others = new ArrayList<>();

  @AfterEach
  void stopEverything() {
    stopHost();
    nodes.forEach(NodeDaemon::close);
    others.forEach(OtherHost::close);
  }

  @Test
  void twoHostsOnOneMachineThatHostTheSameRuntimeLeaveEachOthersShellsAlone() {
    OtherHost one = otherHost(root.resolve("one"));
    OtherHost two = otherHost(root.resolve("two"));
    assertThat(one.api().provision(A, 1).status()).isEqualTo(201);
    AgentApi.Answer second = two.api().provision(A, 1);
    assertThat(second.status()).as(second.body()).isEqualTo(201);
    long pid = one.api().status(A).path("shell").path("pid").asLong();

    others.remove(two);
    two.close();

    assertThat(ProcessHandle.of(pid).filter(ProcessHandle::isAlive)).isPresent();
    long cursor = one.api().end(A);
    one.api().input(A, "echo survived-$((6*7))\n");
    await().atMost(WAIT).until(() -> one.api().text(A, cursor).contains("survived-42"));
  }

  /** A host of its own on another root, beside the test's main one. */
  private record OtherHost(SessionHost host, AgentHttpServer server, AgentApi api) {
    void close() {
      server.close();
      host.close();
    }
  }

  private OtherHost otherHost(Path hostRoot) {
    SessionHost host = SessionHost.open(HostConfig.defaults(hostRoot, TOKEN), Clock.systemUTC());
    AgentHttpServer server =
        AgentHttpServer.start(host, TOKEN, AgentHttpServer.Settings.loopback(0));
    OtherHost other = new OtherHost(host, server, new AgentApi(server.port(), TOKEN));
    others.add(other);
    return other;
  }

  @Test
  void aRestartedHostReportsTheRuntimeStoppedWithItsOutputAndContract() {
    startHost();
    assertThat(api.provision(A, 1).status()).isEqualTo(201);
    AgentApi.Answer lease = api.lease(A, 60, command(5, OperationType.RESUME));
    assertThat(lease.status()).as(lease.body()).isEqualTo(200);
    api.input(A, "echo before-restart-$((6*7))\n");
    await().atMost(WAIT).until(() -> api.text(A, 0).contains("before-restart-42"));
    api.input(A, "exec 2>/dev/null; echo settled-$((1+1))\n");
    await().atMost(WAIT).until(() -> api.text(A, 0).contains("settled-2"));
    long shellPid = api.status(A).path("shell").path("pid").asLong();

    // With stderr gone the shell writes no prompt, so nothing follows this read.
    byte[] before = api.bytes(A, 0);

    stopHost();
    startHost();

    assertThat(ProcessHandle.of(shellPid).filter(ProcessHandle::isAlive)).isEmpty();
    JsonNode listed = api.send("GET", "/v1/sessions", null).json().path("sessions");
    assertThat(listed).hasSize(1);
    JsonNode status = listed.get(0);
    assertThat(status.path("runtime").asString()).isEqualTo("berth-" + A + "-1");
    assertThat(status.path("state").asString()).isEqualTo("stopped");
    assertThat(status.path("stopReason").asString()).isEqualTo("HOST_RESTARTED");
    assertThat(status.path("labels").path("berth.dev/session").asString()).isEqualTo(A);
    assertThat(status.path("acceptedIntentVersion").asLong()).isEqualTo(5);
    byte[] after = api.bytes(A, 0);
    assertThat(after).isEqualTo(before);
    assertThat(new String(after, StandardCharsets.UTF_8)).contains("before-restart-42");
    assertThat(status.path("output").path("nextOffset").asLong()).isEqualTo(after.length);
  }

  @Test
  void aRestartedHostRefusesInputAndStaleCommandsForTheStoppedRuntime() {
    startHost();
    assertThat(api.provision(A, 1).status()).isEqualTo(201);
    assertThat(api.lease(A, 60, command(5, OperationType.RESUME)).status()).isEqualTo(200);

    stopHost();
    startHost();

    AgentApi.Answer input = api.input(A, "echo nobody-listens\n");
    assertThat(input.status()).isEqualTo(503);
    assertThat(input.json().path("reason").asString()).isEqualTo("SHELL_EXITED");
    AgentApi.Answer staleLease = api.lease(A, 60, command(4, OperationType.RESUME));
    assertThat(staleLease.status()).isEqualTo(409);
    assertThat(staleLease.json().path("reason").asString()).isEqualTo("STALE_INTENT");
    assertThat(staleLease.json().path("acceptedIntentVersion").asLong()).isEqualTo(5);
    AgentApi.Answer staleInput = api.input(A, "echo stale\n", command(3, OperationType.PROVISION));
    assertThat(staleInput.status()).isEqualTo(409);
    assertThat(staleInput.json().path("reason").asString()).isEqualTo("STALE_INTENT");
  }

  @Test
  void deletingTheStoppedRuntimeRemovesItAndKeepsTheContract() {
    startHost();
    assertThat(api.provision(A, 1).status()).isEqualTo(201);
    assertThat(api.lease(A, 60, command(5, OperationType.RESUME)).status()).isEqualTo(200);
    stopHost();
    startHost();
    Path session = root.resolve("sessions").resolve(A);
    assertThat(session.resolve("runtimes").resolve("berth-" + A + "-1")).isDirectory();

    AgentApi.Answer deleted =
        api.send("DELETE", "/v1/sessions/" + A + "?runtime=berth-" + A + "-1", null);

    assertThat(deleted.status()).isEqualTo(204);
    assertThat(api.send("GET", "/v1/sessions/" + A + "/status", null).status()).isEqualTo(404);
    assertThat(api.send("GET", "/v1/sessions", null).json().path("sessions")).isEmpty();
    assertThat(session.resolve("runtimes").resolve("berth-" + A + "-1")).doesNotExist();
    assertThat(session.resolve("contract.json")).isRegularFile();
    assertThat(api.send("DELETE", "/v1/sessions/" + A, null).status()).isEqualTo(204);
    stopHost();
    startHost();
    assertThat(api.send("GET", "/v1/sessions", null).json().path("sessions")).isEmpty();
  }

  @Test
  void aSecondNodeOnTheSameDirectoryIsRefusedUntilTheFirstCloses() throws IOException {
    Path dir = root.resolve("node");
    NodeDaemon first = startNode(dir);
    assertThat(NodeInfo.read(dir))
        .hasValueSatisfying(i -> assertThat(i.port()).isEqualTo(first.port()));

    assertThatThrownBy(() -> startNode(dir))
        .isInstanceOf(NodeAlreadyRunningException.class)
        .hasMessageContaining(dir.toString());
    assertThat(heldLocks(dir.resolve(NodeDaemon.LOCK_FILE)))
        .as("the refused start must leave the first node's lock in place")
        .isOne();
    assertThat(
            new AgentApi(first.port(), NodeToken.readOrCreate(dir))
                .unauthenticated("/healthz")
                .status())
        .isEqualTo(200);

    first.close();

    assertThat(dir.resolve(NodeInfo.FILE)).doesNotExist();
    assertThat(heldLocks(dir.resolve(NodeDaemon.LOCK_FILE))).isZero();
    NodeDaemon second = startNode(dir);
    assertThat(NodeInfo.read(dir))
        .hasValueSatisfying(i -> assertThat(i.port()).isEqualTo(second.port()));
  }

  private NodeDaemon startNode(Path dir) {
    NodeDaemon node = NodeDaemon.start(dir, AgentHttpServer.Settings.loopback(0), c -> c);
    nodes.add(node);
    return node;
  }

  /**
   * How many POSIX locks this process holds on {@code file}, from {@code /proc/locks}: the kernel's
   * view, which a lock dropped behind the JVM's back (closing another channel on the same file) no
   * longer shows.
   */
  private static long heldLocks(Path file) throws IOException {
    long inode = (Long) Files.getAttribute(file, "unix:ino");
    long pid = ProcessHandle.current().pid();
    return Files.readAllLines(Path.of("/proc/locks")).stream()
        .map(line -> line.trim().split("\\s+"))
        .filter(f -> f.length > 5 && f[1].equals("POSIX") && f[4].equals(Long.toString(pid)))
        .filter(f -> f[5].endsWith(":" + inode))
        .count();
  }

  private void startHost() {
    host = SessionHost.open(HostConfig.defaults(root, TOKEN), Clock.systemUTC());
    server = AgentHttpServer.start(host, TOKEN, AgentHttpServer.Settings.loopback(0));
    api = new AgentApi(server.port(), TOKEN);
  }

  private void stopHost() {
    if (server != null) {
      server.close();
      server = null;
    }
    if (host != null) {
      host.close();
      host = null;
    }
  }

  private static AgentApi.Command command(long version, OperationType type) {
    return AgentApi.Command.of(version, OperationId.of(new SessionId(A), type, version).value());
  }
}
