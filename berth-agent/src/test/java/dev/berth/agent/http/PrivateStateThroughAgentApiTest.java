package dev.berth.agent.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.berth.agent.node.NodeDaemon;
import dev.berth.agent.testing.PrivateTree;
import dev.berth.core.operation.OperationId;
import dev.berth.core.operation.OperationType;
import dev.berth.core.session.SessionId;
import dev.berth.protocol.node.NodeToken;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node's whole state directory after a shell ran, an execution ran, and the runtime was
 * checkpointed, removed and restored into a new one: nothing the node keeps there is open to group
 * or others, except what the workload owns (home, tmp, shell-state), whose modes are its own.
 */
class PrivateStateThroughAgentApiTest {

  private static final String SID = "5ec7e7" + "0".repeat(26);
  private static final String FIRST = "berth-" + SID + "-1";
  private static final String SECOND = "berth-" + SID + "-2";
  private static final Duration WAIT = Duration.ofSeconds(30);

  @TempDir Path root;
  private NodeDaemon node;

  @AfterEach
  void stopNode() {
    if (node != null) {
      node.close();
    }
  }

  @Test
  void aNodeKeepsEveryFileOfItsOwnPrivateThroughProvisionExecutionCheckpointAndRestore() {
    Path stateDir = root.resolve("node");
    node = NodeDaemon.start(stateDir, AgentHttpServer.Settings.loopback(0), config -> config);
    AgentApi api = new AgentApi(node.port(), NodeToken.readOrCreate(stateDir));
    assertThat(api.provision(SID, 1).status()).isEqualTo(201);
    api.input(SID, "echo kept > ~/file.txt; echo ready-$((40+2))\n");
    await().atMost(WAIT).until(() -> api.text(SID, 0).contains("ready-42"));
    String execution = api.execute(SID, "echo exec-$((6*7))", 30);
    await().atMost(WAIT).until(() -> api.executionText(SID, execution).contains("exec-42"));
    assertThat(PrivateTree.exposed(stateDir)).as("while the first runtime runs").isEmpty();

    AgentApi.Bytes archive = api.checkpoint(SID, 1, command(2, OperationType.SUSPEND));
    assertThat(archive.status()).as(archive.text()).isEqualTo(200);
    assertThat(api.send("DELETE", "/v1/sessions/" + SID + "?runtime=" + FIRST, null).status())
        .isEqualTo(204);
    assertThat(api.provision(SID, 2, true).status()).isEqualTo(201);
    AgentApi.Answer restored =
        api.restore(SID, SECOND, 1, archive.body(), command(3, OperationType.RESUME));
    assertThat(restored.status()).as(restored.body()).isEqualTo(200);
    long end = restored.json().path("output").path("nextOffset").asLong();
    api.input(SID, "cat ~/file.txt; echo done-$((2+3))\n");
    await().atMost(WAIT).until(() -> api.text(SID, end).contains("done-5"));

    assertThat(PrivateTree.exposed(stateDir)).as("after the restore").isEmpty();
    assertThat(PrivateTree.platformFiles(stateDir))
        .as("node token, lock, info, log segments, contract, descriptor")
        .isGreaterThanOrEqualTo(8);
  }

  private static AgentApi.Command command(long version, OperationType type) {
    return AgentApi.Command.of(version, OperationId.of(new SessionId(SID), type, version).value());
  }
}
