package dev.berth.agent.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.berth.agent.node.NodeDaemon;
import dev.berth.protocol.node.NodeToken;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.OptionalDouble;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node's own meters, scraped at {@code GET /metrics} as an operator's Prometheus would: they move
 * with the sessions the node hosts, and only the node's token reads them.
 */
class NodeMetricsThroughAgentApiTest {

  private static final String SID = "3e7e25" + "0".repeat(26);
  private static final Duration WAIT = Duration.ofSeconds(30);

  @TempDir Path root;
  private NodeDaemon node;
  private AgentApi api;

  @BeforeEach
  void startNode() {
    Path stateDir = root.resolve("node");
    node = NodeDaemon.start(stateDir, AgentHttpServer.Settings.loopback(0), config -> config);
    api = new AgentApi(node.port(), NodeToken.readOrCreate(stateDir));
  }

  @AfterEach
  void stopNode() {
    node.close();
  }

  @Test
  void theGaugesAndCountersFollowASessionFromProvisionThroughOutputToRemoval() {
    String idle = scrape();
    assertThat(value(idle, "berth_node_sessions_hosted")).isEqualTo(0);
    assertThat(value(idle, "berth_node_shells_running")).isEqualTo(0);
    assertThat(value(idle, "berth_node_output_bytes_total{kind=\"shell\"}")).isEqualTo(0);
    for (String reason : new String[] {"disk", "confinement", "spawn", "unconfined"}) {
      assertThat(value(idle, "berth_node_sandbox_failures_total{reason=\"" + reason + "\"}"))
          .as("every reason is a series from the start, so that a rate sees the first failure")
          .isEqualTo(0);
    }

    assertThat(api.provision(SID, 1).status()).isEqualTo(201);
    api.input(SID, "echo metered-$((6*7))\n");
    await().atMost(WAIT).until(() -> api.text(SID, 0).contains("metered-42"));
    String execution = api.execute(SID, "echo counted-$((6*7))", 30);
    await().atMost(WAIT).until(() -> api.executionText(SID, execution).contains("counted-42"));

    String busy = scrape();
    assertThat(value(busy, "berth_node_sessions_hosted")).isEqualTo(1);
    assertThat(value(busy, "berth_node_shells_running")).isEqualTo(1);
    assertThat(value(busy, "berth_node_output_bytes_total{kind=\"shell\"}"))
        .as("at least the echoed line")
        .isGreaterThanOrEqualTo("metered-42\r\n".length());
    assertThat(value(busy, "berth_node_output_bytes_total{kind=\"execution\"}"))
        .isEqualTo("counted-42\n".length());
    assertThat(busy).as("no session id in any label").doesNotContain(SID);

    assertThat(api.send("DELETE", "/v1/sessions/" + SID, null).status()).isEqualTo(204);
    String after = scrape();
    assertThat(value(after, "berth_node_sessions_hosted")).isEqualTo(0);
    assertThat(value(after, "berth_node_shells_running")).isEqualTo(0);
    assertThat(value(after, "berth_node_output_bytes_total{kind=\"shell\"}"))
        .as("a counter keeps what it counted (the prompt may have come since)")
        .isGreaterThanOrEqualTo(value(busy, "berth_node_output_bytes_total{kind=\"shell\"}"));
  }

  @Test
  void theMetricsAreTheNodesOwnAndTheJvmsInThePrometheusTextFormat() {
    AgentApi.Answer answer = api.send("GET", "/metrics", null);

    assertThat(answer.status()).isEqualTo(200);
    assertThat(answer.headers().firstValue("Content-Type"))
        .hasValueSatisfying(type -> assertThat(type).startsWith("text/plain; version=0.0.4"));
    assertThat(answer.body())
        .contains("# TYPE berth_node_shells_running gauge")
        .contains("# TYPE berth_node_output_bytes_total counter")
        .contains("jvm_memory_used_bytes")
        .contains("process_uptime_seconds");
  }

  @Test
  void theMetricsNeedTheNodesTokenOrItsMetricsToken() {
    assertThat(api.unauthenticated("/metrics").status()).isEqualTo(401);
    AgentApi wrongToken = new AgentApi(node.port(), "w".repeat(43));
    assertThat(wrongToken.send("GET", "/metrics", null).status()).isEqualTo(401);
    AgentApi scraper =
        new AgentApi(node.port(), NodeToken.readOrCreateMetrics(root.resolve("node")));
    assertThat(scraper.send("GET", "/metrics", null).status()).isEqualTo(200);
  }

  @Test
  void theMetricsTokenReadsTheMetersAndControlsNothing() {
    AgentApi scraper =
        new AgentApi(node.port(), NodeToken.readOrCreateMetrics(root.resolve("node")));
    assertThat(scraper.send("GET", "/v1/sessions", null).status()).isEqualTo(401);
    assertThat(scraper.provision(SID, 1).status()).isEqualTo(401);
    assertThat(api.send("GET", "/v1/sessions/" + SID + "/status", null).status())
        .as("nothing was provisioned")
        .isEqualTo(404);
  }

  private String scrape() {
    AgentApi.Answer answer = api.send("GET", "/metrics", null);
    assertThat(answer.status()).as(answer.body()).isEqualTo(200);
    return answer.body();
  }

  /** The sample of {@code series} (name and labels, as the text format writes them). */
  private static double value(String scrape, String series) {
    OptionalDouble sample =
        Arrays.stream(scrape.split("\n"))
            .filter(line -> line.startsWith(series + " "))
            .mapToDouble(line -> Double.parseDouble(line.substring(series.length() + 1).trim()))
            .findFirst();
    assertThat(sample).as("a sample of " + series + " in\n" + scrape).isPresent();
    return sample.getAsDouble();
  }
}
