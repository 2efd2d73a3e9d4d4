package dev.berth.cli.e2e;

import static dev.berth.cli.e2e.CaseKit.CONVERGE;
import static dev.berth.cli.e2e.CaseKit.obligation;
import static dev.berth.cli.e2e.CaseKit.runtimeName;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.berth.cli.e2e.FiveCases.Case;
import dev.berth.cli.e2e.FourColumns.Look;
import java.util.List;
import java.util.Map;

/**
 * The cases of the state model that are done to the data plane beneath a session: its shell or its
 * host killed, or its runtime removed under a live host (runtime disappearance); its host stopped
 * (connector disconnect). Killing or stopping a local node disturbs every session on it, so a pair
 * runs these cases one at a time.
 */
final class HostFaults {

  private static final String SHELL_EXITED = "the shell exited with status 137";

  private final CaseKit kit;
  private final Deployment deployment;
  private final Api admin;

  HostFaults(CaseKit kit) {
    this.kit = kit;
    this.deployment = kit.deployment;
    this.admin = kit.admin;
  }

  // ---- runtime disappearance ------------------------------------------------------------------

  /**
   * The shell's process tree dies (SIGKILL): the runtime outlives its shell. The session stays
   * ready and says so, and the next input starts a new shell with the state its predecessor
   * captured; nothing is provisioned, nothing is owed.
   */
  void shellTreeKilled() {
    Api client = kit.tenant("lost", 2, 1).getFirst();
    String id = client.create("shell-killed");
    assertThat(Shell.run(client, id, "export LOST_MARK=kept-$((6*7))").rc()).isZero();
    Look before = Look.at(admin, id);
    String runtime = runtimeName(before);
    Deployment.Agent agent = deployment.agent(id, runtime);
    long pid =
        deployment
            .callAgent(agent, "GET", "/status?runtime=" + runtime, Map.of())
            .json()
            .path("shell")
            .path("pid")
            .asLong();
    ProcessHandle shell = ProcessHandle.of(pid).orElseThrow();
    shell.descendants().forEach(ProcessHandle::destroyForcibly);
    shell.destroyForcibly();

    await().atMost(CONVERGE).until(() -> admin.text(id, 0).contains(SHELL_EXITED));
    Look after = Look.at(admin, id);
    kit.record(
        Case.RUNTIME_DISAPPEARANCE,
        "the shell's process tree SIGKILLed",
        after,
        after.operationsSince(before));

    assertThat(after.phase()).isEqualTo("READY");
    assertThat(after.session().has("failure")).isFalse();
    assertThat(after.conditionStatus("RuntimeObserved")).isEqualTo("True");
    assertThat(after.operationsSince(before)).isEmpty();
    assertThat(after.reservation()).isEqualTo("HELD");
    assertThat(after.obligations()).isEmpty();
    assertThat(Shell.run(client, id, "echo $LOST_MARK").output()).isEqualTo("kept-42\n");
    assertThat(runtimeName(Look.at(admin, id))).isEqualTo(runtime);
    assertThat(deployment.runtimesOf(id)).containsExactly(runtime);
    assertThat(client.delete("/sessions/" + id).status()).isEqualTo(204);
  }

  /**
   * The runtime vanishes while its host lives: its pod deleted (as {@code kubectl delete pod}
   * would), or the node told to remove it (as a cleanup that took it for an orphan would). The
   * session had an archive: the loss is marked, and the session restored from that archive into its
   * next incarnation, holding its slot throughout; one runtime, never two.
   */
  void runtimeVanished() {
    Api client = kit.tenant("lost", 2, 1).getFirst();
    String id = client.create("vanished");
    assertThat(Shell.run(client, id, "export LOST_MARK=kept-$((6*7))").rc()).isZero();
    CaseKit.snapshotAndResume(client, id);
    Look before = Look.at(admin, id);
    String runtime = runtimeName(before);

    deployment.removeRuntime(id, runtime);
    await()
        .atMost(CONVERGE)
        .until(
            () -> {
              Look now = Look.at(admin, id);
              return now.phase().equals("FAILED")
                  || (now.phase().equals("READY") && !runtimeName(now).equals(runtime));
            });
    Look after = Look.at(admin, id);
    kit.record(
        Case.RUNTIME_DISAPPEARANCE,
        deployment.pair().runtime() == Deployment.RuntimeKind.LOCAL
            ? "the runtime removed from under the node"
            : "the pod deleted",
        after,
        after.operationsSince(before));

    // session: restored from its last archive into the next incarnation
    assertThat(after.phase()).isEqualTo("READY");
    assertThat(after.session().path("runtime").path("incarnation").asLong())
        .isEqualTo(before.session().path("runtime").path("incarnation").asLong() + 1);
    assertThat(after.conditionStatus("RuntimeObserved")).isEqualTo("True");
    // operation: the loss marked, then the recovery
    assertThat(after.operationsSince(before))
        .singleElement()
        .satisfies(
            op -> {
              assertThat(op.path("type").asString()).isEqualTo("RECOVER");
              assertThat(op.path("state").asString()).isEqualTo("SUCCEEDED");
              assertThat(op.path("steps").valueStream().map(st -> st.path("name").asString()))
                  .contains("MARK_LOST");
            });
    // reservation held throughout, nothing owed for a runtime that is already gone
    assertThat(after.reservation()).isEqualTo("HELD");
    assertThat(after.obligations()).isEmpty();
    assertThat(deployment.runtimesOf(id)).containsExactly(runtimeName(after));
    assertThat(Shell.run(client, id, "echo $LOST_MARK").output())
        .as("the state of the last archive")
        .isEqualTo("kept-42\n");
    assertThat(client.delete("/sessions/" + id).status()).isEqualTo(204);
    assertThat(deployment.runtimesOf(id)).isEmpty();
  }

  /**
   * The runtime's host dies (SIGKILL): the local node, or the pod's agent container. The session
   * reports it without being asked, claims no command still runs, starts no runtime behind the
   * user's back, and keeps its slot until its runtime's removal is confirmed.
   */
  void hostKilled() {
    Api client = kit.tenant("lost", 2, 1).getFirst();
    String id = client.create("host-killed");
    assertThat(Shell.run(client, id, "export LOST_MARK=kept-$((6*7))").rc()).isZero();
    Api.Answer started =
        client.post("/sessions/" + id + "/executions", "{\"command\":\"sleep 600\"}");
    assertThat(started.status()).as(started.body()).isEqualTo(201);
    String execution = "/sessions/" + id + "/executions/" + started.json().path("id").asString();
    await()
        .atMost(CONVERGE)
        .until(() -> client.get(execution).json().path("state").asString().equals("RUNNING"));
    Look before = Look.at(admin, id);
    String runtime = runtimeName(before);

    deployment.killHost(deployment.host(runtime));
    await()
        .atMost(CONVERGE)
        .until(
            () -> {
              Look now = Look.at(admin, id);
              return !now.phase().equals("READY")
                  || !now.conditionStatus("RuntimeReady").equals("True");
            });
    Look after = Look.at(admin, id);
    Api.Answer read = admin.get(execution);
    String executionState =
        read.status() == 200
            ? read.json().path("state").asString()
            : "GET answers " + read.status() + " " + read.reason();
    kit.record(
        Case.RUNTIME_DISAPPEARANCE,
        (deployment.pair().runtime() == Deployment.RuntimeKind.LOCAL
                ? "the node SIGKILLed"
                : "the pod's agent SIGKILLed")
            + "; its `sleep 600` execution: "
            + executionState,
        after,
        after.operationsSince(before));

    assertThat(after.phase()).isEqualTo("FAILED");
    assertThat(after.session().path("failure").path("reason").asString())
        .isIn("RUNTIME_HEALTH", "RUNTIME_LOST");
    assertThat(after.conditionStatus("RuntimeReady")).isEqualTo("False");
    assertThat(executionState).as("the execution the host took along").isNotEqualTo("RUNNING");
    assertThat(after.reservation()).as("held while its runtime may exist").isEqualTo("HELD");
    assertThat(after.held()).isEqualTo(1);
    assertThat(deployment.runtimesOf(id))
        .as("no runtime started behind the user's back")
        .containsExactly(runtime);

    assertThat(client.delete("/sessions/" + id).status()).isEqualTo(204);
    Look deleted = Look.at(admin, id);
    kit.record(
        Case.RUNTIME_DISAPPEARANCE, "then deleted", deleted, deleted.operations("TERMINATE"));
    assertThat(deleted.phase()).isEqualTo("TERMINATED");
    assertThat(deleted.reservation()).isEqualTo("RELEASED");
    assertThat(obligation(deleted, "REMOVE_RUNTIME").path("state").asString()).isEqualTo("DONE");
    assertThat(deployment.runtimesOf(id)).isEmpty();
  }

  // ---- connector disconnect -------------------------------------------------------------------

  /**
   * The runtime's agent stops answering (its host SIGSTOPped): the runtime is Unknown, its slot
   * UNCERTAIN and still counted (a create at the quota is refused), nothing is started and no
   * second runtime appears. When the host continues, the session is reconciled and nothing was
   * lost: the shell still has the variable set before.
   */
  void connectorDisconnect() {
    Api client = kit.tenant("cut", 1, 1).getFirst();
    String id = client.create("disconnected");
    assertThat(Shell.run(client, id, "export KEEP_MARK=kept-$((6*7))").rc()).isZero();
    Look before = Look.at(admin, id);
    String runtime = runtimeName(before);

    ProcessHandle host = deployment.host(runtime);
    Deployment.signal(host, "STOP");
    Look cut;
    Api.Answer second;
    List<String> runtimesMeanwhile = List.of(runtime);
    try {
      await()
          .atMost(CONVERGE)
          .until(
              () -> {
                Look now = Look.at(admin, id);
                return now.conditionStatus("RuntimeObserved").equals("Unknown")
                    && now.reservation().equals("UNCERTAIN");
              });
      cut = Look.at(admin, id);
      second = client.post("/sessions", "{\"name\":\"second\"}");
      if (deployment.pair().runtime() == Deployment.RuntimeKind.KUBERNETES) {
        // A stopped node cannot list its runtimes; the cluster can.
        runtimesMeanwhile = deployment.runtimesOf(id);
      }
    } finally {
      Deployment.signal(host, "CONT");
    }
    kit.record(
        Case.CONNECTOR_DISCONNECT,
        (deployment.pair().runtime() == Deployment.RuntimeKind.LOCAL
                ? "the node SIGSTOPped"
                : "the pod's agent SIGSTOPped")
            + "; a create at the quota: "
            + second.status()
            + " "
            + second.reason(),
        cut,
        cut.operationsSince(before));

    assertThat(cut.phase()).isEqualTo("READY");
    assertThat(cut.conditionStatus("RuntimeObserved")).isEqualTo("Unknown");
    assertThat(cut.operationsSince(before)).as("operations started meanwhile").isEmpty();
    assertThat(cut.reservation()).isEqualTo("UNCERTAIN");
    assertThat(cut.held()).as("the uncertain slot still counts").isEqualTo(1);
    assertThat(second.status()).as(second.body()).isEqualTo(429);
    assertThat(second.reason()).isEqualTo("QUOTA_EXCEEDED");
    assertThat(cut.obligations()).isEmpty();
    assertThat(runtimesMeanwhile).as("no second runtime").containsExactly(runtime);

    await()
        .atMost(CONVERGE)
        .until(
            () -> {
              Look now = Look.at(admin, id);
              return now.conditionStatus("RuntimeObserved").equals("True")
                  && now.reservation().equals("HELD");
            });
    Look back = Look.at(admin, id);
    kit.record(Case.CONNECTOR_DISCONNECT, "after SIGCONT", back, back.operationsSince(before));
    assertThat(back.phase()).isEqualTo("READY");
    assertThat(runtimeName(back)).isEqualTo(runtime);
    assertThat(back.operationsSince(before)).isEmpty();
    assertThat(back.obligations()).isEmpty();
    assertThat(Shell.run(client, id, "echo $KEEP_MARK").output()).isEqualTo("kept-42\n");
    assertThat(deployment.runtimesOf(id)).containsExactly(runtime);
    assertThat(client.delete("/sessions/" + id).status()).isEqualTo(204);
  }
}
