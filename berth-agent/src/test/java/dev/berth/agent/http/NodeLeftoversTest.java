package dev.berth.agent.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.berth.agent.isolation.HelperLedger;
import dev.berth.agent.isolation.ProcStat;
import dev.berth.agent.isolation.ProcessTree;
import dev.berth.agent.isolation.Signals;
import dev.berth.protocol.node.NodeInfo;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * Nothing of a session outlives its node (issue 34, item 8): a real node ({@code NodeMain} in a JVM
 * of its own) with {@code egress} sessions, whose network helpers (the namespace's holder and
 * slirp4netns) are processes of the node's, not of the sessions'. Killed with SIGKILL, the node
 * takes them with it; the ones that did not notice (stopped here with SIGSTOP) are killed by the
 * next node on the same state directory, found by the first node's records, while a process whose
 * pid a record names but which started at another time is left alone. A node that stops in order
 * leaves no helper and no record behind.
 */
class NodeLeftoversTest {

  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final String A = "a".repeat(32);
  private static final String B = "b".repeat(32);
  private static final String C = "c".repeat(32);

  @TempDir Path dir;
  private final List<Process> started = new ArrayList<>();

  @AfterEach
  void stopEverything() throws InterruptedException {
    for (Process process : started) {
      process.destroy();
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    }
  }

  @Test
  void aKilledNodesHelpersDieWithItOrAreReapedByTheNextNodeAndAStoppedNodeLeavesNone()
      throws Exception {
    Process first = startNode("first.log");
    AgentApi api = api(first);
    assertThat(api.provision(A, 1).status()).isEqualTo(201);
    assertThat(api.provision(B, 1).status()).isEqualTo(201);
    Map<String, List<HelperLedger.Helper>> helpers = recordedByPlan();
    List<HelperLedger.Helper> ofA = helpersOf(helpers, A);
    List<HelperLedger.Helper> ofB = helpersOf(helpers, B);
    assertThat(ofA).extracting(HelperLedger.Helper::role).contains("holder", "slirp4netns");
    assertThat(ofB).extracting(HelperLedger.Helper::role).contains("holder", "slirp4netns");
    assertThat(ofA).allMatch(NodeLeftoversTest::running);
    // A's helpers stand for ones that miss the node's death (stopped, they cannot notice it).
    ofA.forEach(h -> Signals.toProcess(h.pid(), Signals.SIGSTOP));

    first.destroyForcibly().waitFor();

    await()
        .atMost(Duration.ofSeconds(20))
        .alias("B's helpers end with the node: their pipe from it closed")
        .until(() -> ofB.stream().noneMatch(NodeLeftoversTest::running));
    assertThat(ofA).as("the precondition: A's helpers survived the node").allMatch(this::alive);

    Process unrelated = new ProcessBuilder("sleep", "600").start();
    started.add(unrelated);
    long unrelatedTicks = ProcStat.startTicks(unrelated.pid()).orElseThrow();
    writeRecord(unrelated.pid(), unrelatedTicks + 1, "berth-" + "d".repeat(32) + "-1.0000");

    Process second = startNode("second.log");
    AgentApi again = api(second);

    assertThat(ofA).as("A's helpers reaped by the next node").noneMatch(this::alive);
    assertThat(unrelated.isAlive()).as("a pid reused by another process is left alone").isTrue();
    JsonNode leftovers = again.send("GET", "/v1/leftovers", null).json().path("leftovers");
    Map<Long, String> outcomes = new java.util.HashMap<>();
    leftovers.forEach(
        l -> outcomes.put(l.path("helper").path("pid").asLong(), l.path("outcome").asString()));
    ofA.forEach(h -> assertThat(outcomes).containsEntry(h.pid(), "REAPED"));
    ofB.forEach(h -> assertThat(outcomes).containsEntry(h.pid(), "GONE"));
    assertThat(outcomes).containsEntry(unrelated.pid(), "GONE");
    assertThat(Files.readString(dir.resolve("second.log")))
        .contains("a previous node left the holder of berth-" + A);
    assertThat(HelperLedger.at(dir.resolve(HelperLedger.DIRECTORY)).recorded())
        .as("the predecessor's records are cleared")
        .noneMatch(h -> h.plan().contains(A) || h.plan().contains(B));

    assertThat(again.provision(C, 1).status()).isEqualTo(201);
    List<HelperLedger.Helper> ofC = helpersOf(recordedByPlan(), C);
    assertThat(ofC).isNotEmpty().allMatch(NodeLeftoversTest::running);

    // What `berth node stop` does: SIGTERM, and the node stops in order.
    second.destroy();
    assertThat(second.waitFor(60, TimeUnit.SECONDS)).isTrue();

    assertThat(ofC).as("a stopped node leaves no helper").noneMatch(this::alive);
    assertThat(HelperLedger.at(dir.resolve(HelperLedger.DIRECTORY)).recorded())
        .as("and no record")
        .isEmpty();
    assertThat(unrelated.isAlive()).isTrue();
  }

  private Map<String, List<HelperLedger.Helper>> recordedByPlan() {
    return HelperLedger.at(dir.resolve(HelperLedger.DIRECTORY)).recorded().stream()
        .collect(Collectors.groupingBy(HelperLedger.Helper::plan));
  }

  private static List<HelperLedger.Helper> helpersOf(
      Map<String, List<HelperLedger.Helper>> byPlan, String session) {
    return byPlan.entrySet().stream()
        .filter(e -> e.getKey().startsWith("berth-" + session + "-"))
        .flatMap(e -> e.getValue().stream())
        .toList();
  }

  /** The recorded process itself runs (its pid was not given to another since). */
  private static boolean running(HelperLedger.Helper helper) {
    return ProcStat.startTicks(helper.pid()).orElse(-1) == helper.startTicks()
        && ProcessHandle.of(helper.pid()).map(ProcessTree::isRunning).orElse(false);
  }

  /** As {@link #running}, a stopped process included. */
  private boolean alive(HelperLedger.Helper helper) {
    return ProcStat.startTicks(helper.pid()).orElse(-1) == helper.startTicks()
        && ProcStat.read(helper.pid()).map(s -> !s.isZombie()).orElse(false);
  }

  /** A record as a node writes it, for a process that is no helper. */
  private void writeRecord(long pid, long ticks, String plan) throws IOException {
    String boot = Files.readString(Path.of("/proc/sys/kernel/random/boot_id")).strip();
    Path records = dir.resolve(HelperLedger.DIRECTORY);
    Files.createDirectories(records);
    Files.writeString(
        records.resolve(pid + "-" + ticks + ".json"),
        AgentApi.JSON.writeValueAsString(
            new HelperLedger.Helper(pid, ticks, boot, plan, "holder")));
  }

  private AgentApi api(Process node) throws IOException {
    Optional<NodeInfo> info = NodeInfo.read(dir);
    assertThat(info).isPresent();
    assertThat(info.get().pid()).isEqualTo(node.pid());
    return new AgentApi(info.get().port(), Files.readString(dir.resolve("node.token")).strip());
  }

  /** {@code NodeMain --network egress} in a JVM of its own, with this test's classpath. */
  private Process startNode(String log) throws IOException {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Process node =
        new ProcessBuilder(
                java,
                "--enable-native-access=ALL-UNNAMED",
                "-Xmx128m",
                "-XX:+UseSerialGC",
                "-cp",
                System.getProperty("java.class.path"),
                "dev.berth.agent.node.NodeMain",
                "--network",
                "egress",
                dir.toString())
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve(log).toFile())
            .start();
    started.add(node);
    await()
        .atMost(WAIT)
        .until(
            () ->
                !node.isAlive()
                    || NodeInfo.read(dir).map(i -> i.pid() == node.pid()).orElse(false));
    assertThat(node.isAlive()).as("the node runs; see %s", dir.resolve(log)).isTrue();
    return node;
  }
}
