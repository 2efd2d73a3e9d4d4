package dev.berth.cli.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.berth.agent.agentcli.FakeModelProvider;
import dev.berth.kubernetes.runtime.KubeletSimulator;
import dev.berth.kubernetes.store.MockApiServer;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * The approval gate in session pods, end to end: {@code bin/berth server --runtime kubernetes
 * --approval claude-code=all} runs the real Claude Code CLI in a session pod whose proxy sidecar
 * holds each tool call until the control plane's gateway has a decision, asked with the gateway key
 * the kubelet resolved from the runtime's Secret into the proxy container alone.
 *
 * <p>Simulated as {@link AgentClusterIT} is; its server gates nothing, this one gates every call.
 */
class AgentClusterApprovalIT {
  private static final Duration CONVERGE = Duration.ofSeconds(120);
  private static final Duration RUN = Duration.ofSeconds(120);
  private static final String NAMESPACE = MockApiServer.NAMESPACE;
  private static final String TOKEN = "sk-gated-cluster-token-1414213562";
  private static final String COMMAND = "run: echo hit >> counter";
  private static final String TOKEN_KEY =
      Base64.getEncoder()
          .encodeToString(
              "agent-cluster-approval-it key, 32+ bytes".getBytes(StandardCharsets.UTF_8));

  @TempDir static Path work;
  private static MockApiServer apiServer;
  private static KubeletSimulator kubelet;
  private static FakeModelProvider provider;
  private static ServerProcess server;
  private static Api api;

  @BeforeAll
  static void start() throws Exception {
    apiServer = MockApiServer.start();
    kubelet =
        KubeletSimulator.start(
            apiServer.client(), NAMESPACE, Files.createDirectories(work.resolve("pods")));
    provider = FakeModelProvider.https(Files.createDirectories(work.resolve("provider")));
    apiServer
        .client()
        .secrets()
        .inNamespace(NAMESPACE)
        .resource(
            new SecretBuilder()
                .withNewMetadata()
                .withName("berth-provider-fake")
                .endMetadata()
                .addToData(
                    "token",
                    Base64.getEncoder().encodeToString(TOKEN.getBytes(StandardCharsets.UTF_8)))
                .build())
        .create();
    Path providers = work.resolve("providers.json");
    Files.writeString(
        providers,
        "{\"claude-code\": {\"url\": \""
            + provider.url()
            + "\", \"caFile\": \""
            + provider.caCertificate()
            + "\", \"tokenSecret\": \"berth-provider-fake/token\"}}");
    server =
        ServerProcess.start(
            work.resolve("data"),
            Map.of(
                "KUBERNETES_MASTER",
                "http://127.0.0.1:" + apiServer.port(),
                "KUBERNETES_AUTH_TRYKUBECONFIG",
                "false",
                "KUBERNETES_AUTH_TRYSERVICEACCOUNT",
                "false",
                "BERTH_AGENT_TOKEN_KEY",
                TOKEN_KEY),
            ServerProcess.Launch.plain()
                .withArguments(
                    "--runtime",
                    "kubernetes",
                    "--kube-namespace",
                    NAMESPACE,
                    "--agent-image",
                    "berth-agent:test",
                    "--agent-cli",
                    "claude-code=" + pinnedCli("claude"),
                    "--providers",
                    providers.toString(),
                    // Simulated pods share this machine's loopback, so they reach the server at
                    // its own address: no --approval-callback-url.
                    "--approval",
                    "claude-code=all"));
    api = new Api(server.baseUrl(), ServerProcess.ADMIN_TOKEN);
  }

  @AfterAll
  static void stop() {
    if (server != null) {
      server.close();
    }
    if (kubelet != null) {
      kubelet.close();
    }
    if (apiServer != null) {
      apiServer.close();
    }
    if (provider != null) {
      provider.close();
    }
  }

  @Test
  void aGatedToolCallInAPodWaitsForItsApprovalAndRunsOnceApproved() throws Exception {
    String id = create("gated", "claude-code");
    Pod pod = podsOf(id).getFirst();
    String podName = pod.getMetadata().getName();
    String key = gatewayKey(podName);
    assertThat(env(pod, "proxy"))
        .anySatisfy(
            e -> {
              assertThat(e.getName()).isEqualTo("BERTH_PROXY_GATEWAY_KEY");
              assertThat(e.getValueFrom().getSecretKeyRef().getKey()).isEqualTo("gateway-key");
            });
    assertThat(env(pod, "agent")).extracting(EnvVar::getName).containsExactly("BERTH_AGENT_TOKEN");

    String execution = prompt(id, COMMAND);
    JsonNode pending = awaitPending(id);
    assertThat(pending.path("tool").asString()).isEqualTo("Bash");
    assertThat(pending.path("state").asString()).isEqualTo("pending");
    assertThat(pending.path("arguments").toString()).contains("echo hit >> counter");
    String approval = pending.path("id").asString();
    assertThat(approval).startsWith(id + ":");
    await()
        .atMost(RUN)
        .until(
            () -> api.text(id, 0).contains("[berth: awaiting approval — Bash · " + approval + "]"));
    assertThat(counter(podName)).as("the held call has not run").isEmpty();
    assertThat(state(id, execution)).isEqualTo("RUNNING");
    // The key reached the proxy container, and only it: the kubelet resolved it there.
    ProcessHandle proxy = kubelet.proxyProcess(podName).orElseThrow();
    ProcessHandle agent = kubelet.agentProcess(podName).orElseThrow();
    assertThat(procFile(proxy, "environ")).contains("BERTH_PROXY_GATEWAY_KEY=" + key);
    assertThat(procFile(agent, "environ")).doesNotContain(key);
    assertThat(procFile(agent, "cmdline")).doesNotContain(key);

    Api.Answer decided =
        api.post("/sessions/" + id + "/approvals/" + approval, "{\"decision\":\"approve\"}");
    assertThat(decided.status()).as(decided.body()).isEqualTo(200);
    assertThat(decided.json().path("state").asString()).isEqualTo("approved");

    assertThat(finished(id, execution)).as(() -> api.text(id, 0)).isEqualTo("SUCCEEDED");
    assertThat(api.text(id, 0)).contains("[berth: approved — Bash · " + approval + "]");
    assertThat(counter(podName)).as("the approved call ran exactly once").hasValue("hit\n");
    assertThat(transcript(id).stream().map(JsonNode::toString))
        .anyMatch(
            e -> e.contains("\"approval\"") && e.contains(approval) && e.contains("\"approved\""));
    assertThat(api.get("/sessions/" + id + "/approvals?state=pending").json().path("items").size())
        .isZero();

    assertThat(api.delete("/sessions/" + id).status()).isEqualTo(204);
    await().atMost(CONVERGE).until(() -> podsOf(id).isEmpty());
  }

  /** The session's first pending approval, once the proxy asked for it. */
  private static JsonNode awaitPending(String id) {
    await()
        .atMost(RUN)
        .until(
            () ->
                !api.get("/sessions/" + id + "/approvals?state=pending")
                    .json()
                    .path("items")
                    .isEmpty());
    return api.get("/sessions/" + id + "/approvals?state=pending").json().path("items").get(0);
  }

  /** The gateway key in the runtime's own Secret, as the runtime made it. */
  private static String gatewayKey(String podName) {
    Secret secret =
        apiServer.client().secrets().inNamespace(NAMESPACE).withName(podName + "-token").get();
    assertThat(secret).as("the runtime's Secret").isNotNull();
    String key =
        Optional.ofNullable(secret.getData())
            .map(d -> d.get("gateway-key"))
            .map(v -> new String(Base64.getDecoder().decode(v), StandardCharsets.UTF_8))
            .orElseGet(() -> secret.getStringData().get("gateway-key"));
    assertThat(key).as("the runtime's Secret holds its gateway key").isNotBlank();
    return key;
  }

  /** The counter file's content in the pod's state directory; empty while there is none. */
  private static Optional<String> counter(String podName) throws IOException {
    try (Stream<Path> files = Files.walk(kubelet.stateDirectory(podName))) {
      Optional<Path> found =
          files.filter(f -> f.getFileName().toString().equals("counter")).findFirst();
      return found.isEmpty() ? Optional.empty() : Optional.of(Files.readString(found.get()));
    }
  }

  private static List<EnvVar> env(Pod pod, String container) {
    return pod.getSpec().getContainers().stream()
        .filter(c -> c.getName().equals(container))
        .findFirst()
        .map(Container::getEnv)
        .orElseThrow();
  }

  private static String procFile(ProcessHandle process, String name) throws IOException {
    return Files.readString(
        Path.of("/proc/" + process.pid() + "/" + name), StandardCharsets.ISO_8859_1);
  }

  private static Path pinnedCli(String name) {
    Path cli =
        ServerProcess.Launch.plain()
            .root()
            .resolve("tools/agent-clis/node_modules/.bin/" + name)
            .toAbsolutePath();
    assertThat(cli).as("the pinned %s CLI; bin/ensure-test-tools installs it", name).isExecutable();
    return cli;
  }

  private static String create(String name, String type) {
    Api.Answer created =
        api.post("/sessions", "{\"name\":\"" + name + "\",\"workloadType\":\"" + type + "\"}");
    assertThat(created.status()).as(created.body()).isEqualTo(201);
    return created.json().path("id").asString();
  }

  private static List<Pod> podsOf(String id) {
    return apiServer
        .client()
        .pods()
        .inNamespace(NAMESPACE)
        .withLabel("berth.dev/session", id)
        .list()
        .getItems();
  }

  private static String prompt(String id, String text) {
    Api.Answer answer =
        api.post(
            "/sessions/" + id + "/write",
            tools.jackson.databind.json.JsonMapper.shared()
                .writeValueAsString(Map.of("payload", text)));
    assertThat(answer.status()).as(answer.body()).isEqualTo(200);
    return answer.json().path("executionId").asString();
  }

  private static String state(String id, String execution) {
    Api.Answer answer = api.get("/sessions/" + id + "/executions/" + execution);
    assertThat(answer.status()).as(answer.body()).isEqualTo(200);
    return answer.json().path("state").asString();
  }

  private static String finished(String id, String execution) {
    await()
        .atMost(RUN)
        .until(
            () ->
                List.of("SUCCEEDED", "FAILED", "CANCELLED", "LOST").contains(state(id, execution)));
    return state(id, execution);
  }

  private static List<JsonNode> transcript(String id) {
    Api.Answer answer = api.get("/sessions/" + id + "/transcript?cursor=0");
    assertThat(answer.status()).as(answer.body()).isEqualTo(200);
    return answer.json().path("entries").valueStream().toList();
  }
}
