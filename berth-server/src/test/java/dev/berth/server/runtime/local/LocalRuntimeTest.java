package dev.berth.server.runtime.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.berth.core.agent.AgentCommand;
import dev.berth.core.agent.AgentStatus;
import dev.berth.core.agent.CommandContext;
import dev.berth.core.error.StaleIntentException;
import dev.berth.core.operation.OperationId;
import dev.berth.core.operation.OperationType;
import dev.berth.core.runtime.OwnershipLabels;
import dev.berth.core.runtime.RemovalResult;
import dev.berth.core.runtime.RuntimeListing;
import dev.berth.core.runtime.RuntimeObservation;
import dev.berth.core.runtime.RuntimeSpec;
import dev.berth.core.session.RuntimeRef;
import dev.berth.core.session.SessionId;
import dev.berth.core.session.WorkloadType;
import dev.berth.protocol.node.NodeInfo;
import dev.berth.protocol.node.NodeToken;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The local runtime against a real node: a separate JVM started by the adapter itself, hosting real
 * shells on real PTYs. Every node and process a test starts is stopped after it.
 */
class LocalRuntimeTest {

  private static final String INSTALLATION = "test-installation";
  private static final SessionId A = new SessionId("a".repeat(32));
  private static final SessionId B = new SessionId("b".repeat(32));

  @TempDir Path nodeDir;
  private LocalNode node;
  private LocalRuntime runtime;
  private final List<Process> processes = new ArrayList<>();

  @BeforeEach
  void adapter() {
    node = new LocalNode(nodeDir, LocalNode.javaLaunchCommand(), Duration.ofSeconds(60));
    runtime = new LocalRuntime(node, INSTALLATION);
  }

  @AfterEach
  void stopEverything() {
    processes.forEach(Process::destroyForcibly);
    NodeInfo.read(nodeDir)
        .flatMap(info -> ProcessHandle.of(info.pid()))
        .ifPresent(
            process -> {
              process.destroy();
              process.onExit().orTimeout(20, java.util.concurrent.TimeUnit.SECONDS).join();
            });
  }

  @Test
  void provisionedRuntimesAreObservedListedAndRemoved() {
    RuntimeRef a = provision(A, 1);
    RuntimeRef b = provision(B, 1);

    assertThat(runtime.observe(a)).isInstanceOf(RuntimeObservation.Running.class);
    assertThat(runtime.list())
        .extracting(RuntimeListing::name)
        .containsExactlyInAnyOrder(a.name(), b.name());
    assertThat(runtime.list())
        .extracting(RuntimeListing::labels)
        .contains(new OwnershipLabels(INSTALLATION, A, 1));

    assertThat(runtime.remove(a)).isInstanceOf(RemovalResult.Confirmed.class);
    assertThat(runtime.observe(a)).isInstanceOf(RuntimeObservation.Gone.class);
    assertThat(runtime.remove(a)).isInstanceOf(RemovalResult.Confirmed.class);
    assertThat(runtime.observe(b)).isInstanceOf(RuntimeObservation.Running.class);
  }

  @Test
  void provisioningTwiceCreatesOneRuntimeAndAnOlderIncarnationIsNotTheCurrentOne() {
    RuntimeRef first = provision(A, 1);
    provision(A, 1);

    assertThat(runtime.list()).hasSize(1);
    RuntimeRef older = RuntimeRef.planned(LocalRuntime.KIND, A, 7);
    assertThat(runtime.observe(older)).isInstanceOf(RuntimeObservation.Gone.class);
    assertThat(runtime.remove(older)).isInstanceOf(RemovalResult.Confirmed.class);
    assertThat(runtime.observe(first)).isInstanceOf(RuntimeObservation.Running.class);
  }

  @Test
  void theAgentReportsHealthAndRefusesAStaleCommand() {
    RuntimeRef a = provision(A, 1);
    var agent =
        new dev.berth.server.runtime.AgentWireDataPlane(
            runtime,
            new dev.berth.server.archive.none.NoArchiveStore(),
            new dev.berth.core.archive.RestoreProgress(java.time.Clock.systemUTC()));

    agent.send(a, new AgentCommand.RenewLease(context(A, 4, 1), Duration.ofMinutes(5)));
    AgentStatus status = agent.status(a);

    assertThat(status.healthy()).isTrue();
    assertThat(status.acceptedIntentVersion()).isEqualTo(4);
    assertThatThrownBy(() -> agent.send(a, new AgentCommand.Terminate(context(A, 3, 2))))
        .isInstanceOf(StaleIntentException.class);
    assertThat(agent.status(a).tombstoned()).isFalse();

    agent.send(a, new AgentCommand.Terminate(context(A, 5, 3)));
    assertThat(agent.status(a).tombstoned()).isTrue();
    assertThat(agent.status(a).healthy()).isFalse();
  }

  @Test
  void theNodeAndItsSessionsOutliveTheControlPlaneThatStartedThem() throws Exception {
    Process controlPlane =
        new ProcessBuilder(
                javaCommand(ControlPlaneStandIn.class.getName(), nodeDir.toString(), A.value()))
            .redirectErrorStream(true)
            .start();
    processes.add(controlPlane);
    BufferedReader out =
        new BufferedReader(
            new InputStreamReader(controlPlane.getInputStream(), StandardCharsets.UTF_8));
    String line;
    while ((line = out.readLine()) != null && !line.equals("READY")) {
      // the stand-in's log lines
    }
    assertThat(line).as("the control plane stand-in provisioned its session").isEqualTo("READY");
    long nodePid = NodeInfo.read(nodeDir).orElseThrow().pid();

    controlPlane.destroyForcibly().waitFor();

    assertThat(ProcessHandle.of(nodePid).map(ProcessHandle::isAlive)).contains(true);
    LocalNode.Connection connection = node.ensureRunning();
    assertThat(connection.pid()).isEqualTo(nodePid);
    RuntimeRef a = RuntimeRef.planned(LocalRuntime.KIND, A, 1);
    assertThat(runtime.observe(a)).isInstanceOf(RuntimeObservation.Running.class);
    post(connection, "/v1/sessions/" + A.value() + "/input", "echo alive-$((20+1))\n");
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> get(connection, "/v1/sessions/" + A.value() + "/output").contains("alive-21"));
  }

  @Test
  void aRestartedAdapterFindsTheSessionOfARuntimeItDidNotProvisionFromTheNode() {
    RuntimeRef a = provision(A, 1);
    LocalRuntime restarted = new LocalRuntime(node, INSTALLATION);

    assertThat(restarted.resolve(a).sessionUrl()).endsWith("/v1/sessions/" + A.value());
    RuntimeRef never = RuntimeRef.planned(LocalRuntime.KIND, B, 1);
    assertThatThrownBy(() -> restarted.resolve(never))
        .isInstanceOf(dev.berth.core.error.NotFoundException.class)
        .hasMessageContaining(never.name());
  }

  @Test
  void aSecondNodeOnTheSameDirectoryIsRefusedAndTheFirstIsReused() {
    LocalNode.Connection first = node.ensureRunning();
    LocalNode other = new LocalNode(nodeDir, LocalNode.javaLaunchCommand(), Duration.ofSeconds(60));

    assertThat(other.ensureRunning().pid()).isEqualTo(first.pid());
    assertThat(NodeToken.readOrCreate(nodeDir)).isEqualTo(first.token());
  }

  @Test
  void aNodeThatDiedIsReplacedAtTheNextCallThoughItsConnectionWasJustReused() throws Exception {
    LocalNode.Connection first = node.ensureRunning();
    assertThat(node.ensureRunning()).as("reused while it lives").isEqualTo(first);

    ProcessHandle dead = ProcessHandle.of(first.pid()).orElseThrow();
    dead.destroyForcibly();
    dead.onExit().get(20, java.util.concurrent.TimeUnit.SECONDS);

    LocalNode.Connection second = node.ensureRunning();
    assertThat(second.pid()).isNotEqualTo(first.pid());
    RuntimeRef served = provision(A, 1);
    assertThat(runtime.observe(served))
        .as("the new node serves at once")
        .isInstanceOf(RuntimeObservation.Running.class);
  }

  @Test
  void theNodeItStartsKeepsItsStateDirectoryTokenAndLogPrivate() throws Exception {
    Path stateDir = nodeDir.resolve("node");
    LocalRuntime onNested =
        new LocalRuntime(
            new LocalNode(stateDir, LocalNode.javaLaunchCommand(), Duration.ofSeconds(60)),
            INSTALLATION);
    RuntimeRef ref = RuntimeRef.planned(LocalRuntime.KIND, A, 1);
    onNested.provision(
        new RuntimeSpec(ref, WorkloadType.SHELL, new OwnershipLabels(INSTALLATION, A, 1)));
    try {
      assertThat(mode(stateDir)).isEqualTo("rwx------");
      for (String file : List.of("node.token", "node.log", "node.json", "node.lock")) {
        assertThat(mode(stateDir.resolve(file))).as(file).isEqualTo("rw-------");
      }
    } finally {
      NodeInfo.read(stateDir)
          .flatMap(info -> ProcessHandle.of(info.pid()))
          .ifPresent(
              process -> {
                process.destroy();
                process.onExit().orTimeout(20, java.util.concurrent.TimeUnit.SECONDS).join();
              });
    }
  }

  private static String mode(Path path) throws java.io.IOException {
    return java.nio.file.attribute.PosixFilePermissions.toString(
        java.nio.file.Files.getPosixFilePermissions(path));
  }

  private RuntimeRef provision(SessionId session, long incarnation) {
    RuntimeRef ref = RuntimeRef.planned(LocalRuntime.KIND, session, incarnation);
    runtime.provision(
        new RuntimeSpec(
            ref, WorkloadType.SHELL, new OwnershipLabels(INSTALLATION, session, incarnation)));
    return ref;
  }

  private static CommandContext context(SessionId session, long version, int n) {
    return new CommandContext(
        session,
        version,
        Instant.now().plusSeconds(30),
        OperationId.of(session, OperationType.TERMINATE, n));
  }

  private static List<String> javaCommand(String mainClass, String... args) {
    List<String> command = new ArrayList<>(LocalNode.javaLaunchCommand());
    command.set(command.size() - 1, mainClass);
    command.addAll(List.of(args));
    return command;
  }

  private static String get(LocalNode.Connection connection, String path) throws Exception {
    return HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(URI.create(connection.baseUrl() + path))
                .header("Authorization", "Bearer " + connection.token())
                .build(),
            HttpResponse.BodyHandlers.ofString())
        .body();
  }

  private static void post(LocalNode.Connection connection, String path, String body)
      throws Exception {
    HttpResponse<String> response =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create(connection.baseUrl() + path))
                    .header("Authorization", "Bearer " + connection.token())
                    .POST(HttpRequest.BodyPublishers.ofString(body))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
  }
}
