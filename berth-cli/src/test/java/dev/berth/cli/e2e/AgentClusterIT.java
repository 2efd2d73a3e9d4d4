package dev.berth.cli.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.berth.agent.agentcli.FakeModelProvider;
import dev.berth.kubernetes.runtime.KubeletSimulator;
import dev.berth.kubernetes.store.MockApiServer;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * Agent sessions on Kubernetes, end to end: {@code bin/berth server --runtime kubernetes} runs the
 * real Claude Code and Codex CLIs (pinned, from npm) in session pods whose credential proxy is a
 * sidecar container, given the provider's token from the operator's Secret by the kubelet.
 *
 * <p>Simulated as {@link ClusterIT} is: fabric8's mock API server and the {@link KubeletSimulator},
 * which runs each pod's {@code agent} and {@code proxy} containers as processes of their own (the
 * proxy with its container's environment, the Secret resolved into it). The model provider is the
 * loopback HTTPS fake the local agent tests use.
 */
class AgentClusterIT {
  private static final Duration CONVERGE = Duration.ofSeconds(120);
  private static final Duration RUN = Duration.ofSeconds(120);
  private static final String NAMESPACE = MockApiServer.NAMESPACE;
  private static final String TOKEN = "sk-cluster-provider-token-2718281828";
  private static final String TUNED_BEFORE = "okapi-3003";
  private static final String TUNED_AFTER = "okapi-4004";
  private static final String TOKEN_KEY =
      Base64.getEncoder()
          .encodeToString("agent-cluster-it token key, 32+ bytes".getBytes(StandardCharsets.UTF_8));

  @TempDir static Path work;
  private static MockApiServer apiServer;
  private static KubeletSimulator kubelet;
  private static FakeModelProvider provider;
  private static ServerProcess server;
  private static Api api;
  private static Path tunedSkill;

  @BeforeAll
  static void start() throws Exception {
    apiServer = MockApiServer.start();
    kubelet =
        KubeletSimulator.start(
            apiServer.client(), NAMESPACE, Files.createDirectories(work.resolve("pods")));
    provider = FakeModelProvider.https(Files.createDirectories(work.resolve("provider")));
    provider.echoes(TOKEN);
    // The operator's Secret, as `kubectl create secret generic` makes it; minimax-code's is never
    // made.
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
    String common =
        "\"url\": \"" + provider.url() + "\", \"caFile\": \"" + provider.caCertificate() + "\"";
    Files.writeString(
        providers,
        "{\"claude-code\": {"
            + common
            + ", \"tokenSecret\": \"berth-provider-fake/token\"},"
            + " \"codex\": {"
            + common
            + ", \"tokenSecret\": \"berth-provider-fake/token\", \"api\": \"openai\","
            + " \"model\": \"gpt-5-codex\"},"
            + " \"minimax-code\": {"
            + common
            + ", \"tokenSecret\": \"berth-provider-minimax-code/token\"}}");
    Path plugins = work.resolve("marketplace");
    tunedSkill = Files.createDirectories(plugins.resolve("tuned/skills/berth-tuned"));
    Files.createDirectories(plugins.resolve("tuned/.claude-plugin"));
    Files.writeString(
        plugins.resolve("tuned/.claude-plugin/plugin.json"),
        "{\"name\":\"tuned\",\"version\":\"1.0.0\",\"description\":\"Berth's refreshed plugin\"}");
    Files.writeString(tunedSkill.resolve("SKILL.md"), tunedSkill(TUNED_BEFORE));
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
                    // In the simulated pods the image's paths are this machine's.
                    "--agent-cli",
                    "claude-code=" + pinnedCli("claude"),
                    "--agent-cli",
                    "codex=" + pinnedCli("codex"),
                    "--agent-cli",
                    "minimax-code=" + pinnedCli("claude"),
                    "--providers",
                    providers.toString(),
                    "--plugins-dir",
                    plugins.toString()));
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
  void aClaudeSessionInAPodRunsItsToolKeepsItsConversationAcrossASnapshotAndNeverHoldsTheToken()
      throws Exception {
    String id = create("dharma", "claude-code");
    Pod pod = podsOf(id).getFirst();
    assertThat(pod.getSpec().getContainers())
        .extracting(c -> c.getName())
        .containsExactly("agent", "proxy");

    String hello = prompt(id, "hello, my name is Dharma").path("executionId").asString();
    assertThat(finished(id, hello)).as(() -> api.text(id, 0)).isEqualTo("SUCCEEDED");
    assertThat(api.text(id, 0)).contains("Hello from the fake provider.");
    String touch = prompt(id, "please touch the marker").path("executionId").asString();
    assertThat(finished(id, touch)).isEqualTo("SUCCEEDED");
    assertThat(provider.answersAsked().getLast().body()).contains("my name is Dharma");
    String echo = prompt(id, "please echo the token in two deltas").path("executionId").asString();
    assertThat(finished(id, echo)).isEqualTo("SUCCEEDED");

    List<JsonNode> transcript = transcript(id);
    assertThat(transcript.stream().map(JsonNode::toString))
        .anyMatch(e -> e.contains("\"tool-call\"") && e.contains("touch marker.txt"));
    // The provider saw the real token, from the Secret, through the sidecar.
    assertThat(provider.received().stream().filter(r -> r.path().startsWith("/v1/messages")))
        .isNotEmpty()
        .allSatisfy(r -> assertThat(r.headers()).containsEntry("x-api-key", TOKEN));
    // The agent container never holds it: not in its process's environment or command line, not
    // in its state directory (the workspace, the CLI's home, the logs), not in the output.
    String podName = pod.getMetadata().getName();
    ProcessHandle agent = kubelet.agentProcess(podName).orElseThrow();
    assertThat(procFile(agent, "environ")).contains("BERTH_AGENT_TOKEN=").doesNotContain(TOKEN);
    assertThat(procFile(agent, "cmdline")).contains("--proxy").doesNotContain(TOKEN);
    assertThat(filesHolding(kubelet.stateDirectory(podName), TOKEN)).isEmpty();
    assertThat(api.text(id, 0)).contains("[REDACTED]").doesNotContain(TOKEN);

    Api.Answer snapshot = api.post("/sessions/" + id + "/snapshot", "{}");
    assertThat(snapshot.status()).as(snapshot.body()).isEqualTo(200);
    await().atMost(CONVERGE).until(() -> podsOf(id).isEmpty());
    JsonNode again = prompt(id, "what is my name?");
    assertThat(again.path("path").asString()).isEqualTo("snapshot->restore->write");
    assertThat(finished(id, again.path("executionId").asString())).isEqualTo("SUCCEEDED");
    assertThat(provider.answersAsked().getLast().body()).contains("my name is Dharma");
    assertThat(podsOf(id))
        .singleElement()
        .satisfies(p -> assertThat(p.getMetadata().getName()).endsWith("-2"));

    assertThat(api.delete("/sessions/" + id).status()).isEqualTo(204);
    await().atMost(CONVERGE).until(() -> podsOf(id).isEmpty());
  }

  @Test
  void aCodexSessionInAPodRunsItsToolAndKeepsItsConversationAcrossASnapshot() {
    String id = create("rosa", "codex");

    String hello = prompt(id, "hello, my name is Rosa").path("executionId").asString();
    assertThat(finished(id, hello)).as(() -> api.text(id, 0)).isEqualTo("SUCCEEDED");
    String touch = prompt(id, "please touch the marker").path("executionId").asString();
    assertThat(finished(id, touch)).isEqualTo("SUCCEEDED");
    assertThat(transcript(id).stream().map(JsonNode::toString))
        .anyMatch(e -> e.contains("\"tool-call\"") && e.contains("touch marker.txt"));

    Api.Answer snapshot = api.post("/sessions/" + id + "/snapshot", "{}");
    assertThat(snapshot.status()).as(snapshot.body()).isEqualTo(200);
    JsonNode again = prompt(id, "what is my name?");
    assertThat(again.path("path").asString()).isEqualTo("snapshot->restore->write");
    assertThat(finished(id, again.path("executionId").asString())).isEqualTo("SUCCEEDED");
    assertThat(provider.answersAsked().getLast().body()).contains("my name is Rosa");
    assertThat(provider.received().stream().filter(r -> r.path().startsWith("/v1/responses")))
        .isNotEmpty()
        .allSatisfy(r -> assertThat(r.headers()).containsEntry("authorization", "Bearer " + TOKEN));
    assertThat(api.delete("/sessions/" + id).status()).isEqualTo(204);
  }

  @Test
  void aPluginRefreshInAPodGivesTheSessionTheMarketplacesPluginAsItIsNow() throws Exception {
    Api.Answer created =
        api.post(
            "/sessions",
            "{\"name\":\"refresh\",\"workloadType\":\"claude-code\",\"plugins\":[\"tuned\"]}");
    assertThat(created.status()).as(created.body()).isEqualTo(201);
    String id = created.json().path("id").asString();
    String first = prompt(id, "hello, my name is Ada").path("executionId").asString();
    assertThat(finished(id, first)).as(() -> api.text(id, 0)).isEqualTo("SUCCEEDED");
    assertThat(provider.answersAsked().getLast().body()).contains(TUNED_BEFORE);

    Files.writeString(tunedSkill.resolve("SKILL.md"), tunedSkill(TUNED_AFTER));
    Api.Answer refreshed = api.post("/sessions/" + id + "/plugins/refresh", "");
    assertThat(refreshed.status()).as(refreshed.body()).isEqualTo(200);
    String second = prompt(id, "what is my name?").path("executionId").asString();
    assertThat(finished(id, second)).isEqualTo("SUCCEEDED");
    String asked = provider.answersAsked().getLast().body();
    assertThat(asked).contains("my name is Ada", TUNED_AFTER);
    assertThat(api.delete("/sessions/" + id).status()).isEqualTo(204);
  }

  @Test
  void aTypeWhoseProviderSecretIsMissingFailsWithCredentialReferenceAndHoldsItsSlotUntilDeleted() {
    Api.Answer created =
        api.post("/sessions", "{\"name\":\"no-secret\",\"workloadType\":\"minimax-code\"}");

    assertThat(created.status()).as(created.body()).isEqualTo(503);
    assertThat(created.json().path("detail").asString()).contains("CREDENTIAL_REFERENCE");
    String id = named("no-secret").path("id").asString();
    JsonNode failed = api.get("/sessions/" + id).json();
    assertThat(failed.path("state").asString()).isEqualTo("failed");
    assertThat(failed.path("failure").path("reason").asString()).isEqualTo("CREDENTIAL_REFERENCE");
    assertThat(failed.path("failure").path("message").asString())
        .contains("berth-provider-minimax-code", "kubectl");
    assertThat(failed.path("reservation").asString())
        .as("its slot is held until its runtime is removed")
        .isNotEqualTo("RELEASED");
    assertThat(podsOf(id)).isEmpty();

    assertThat(api.delete("/sessions/" + id).status()).isEqualTo(204);
    await()
        .atMost(CONVERGE)
        .until(() -> api.deleted(id).path("reservation").asString().equals("RELEASED"));
  }

  private static String tunedSkill(String mark) {
    return "---\nname: berth-tuned\ndescription: Knows the " + mark + " marker.\n---\nSay it.\n";
  }

  private static String procFile(ProcessHandle process, String name) throws IOException {
    return Files.readString(
        Path.of("/proc/" + process.pid() + "/" + name), StandardCharsets.ISO_8859_1);
  }

  /** The files under {@code dir} whose bytes hold {@code secret}. */
  private static List<Path> filesHolding(Path dir, String secret) throws IOException {
    byte[] needle = secret.getBytes(StandardCharsets.UTF_8);
    try (Stream<Path> files = Files.walk(dir)) {
      return files
          .filter(Files::isRegularFile)
          .filter(
              f -> {
                try {
                  return new String(Files.readAllBytes(f), StandardCharsets.ISO_8859_1)
                      .contains(new String(needle, StandardCharsets.ISO_8859_1));
                } catch (IOException e) {
                  throw new UncheckedIOException(e);
                }
              })
          .toList();
    }
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

  private static JsonNode named(String name) {
    for (JsonNode s : api.get("/sessions").json().path("sessions")) {
      if (s.path("name").asString().equals(name)) {
        return s;
      }
    }
    throw new AssertionError("no session named " + name);
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

  private static JsonNode prompt(String id, String text) {
    Api.Answer answer =
        api.post(
            "/sessions/" + id + "/write",
            tools.jackson.databind.json.JsonMapper.shared()
                .writeValueAsString(Map.of("payload", text)));
    assertThat(answer.status()).as(answer.body()).isEqualTo(200);
    return answer.json();
  }

  private static JsonNode execution(String id, String execution) {
    Api.Answer answer = api.get("/sessions/" + id + "/executions/" + execution);
    assertThat(answer.status()).as(answer.body()).isEqualTo(200);
    return answer.json();
  }

  private static String finished(String id, String execution) {
    await()
        .atMost(RUN)
        .until(
            () ->
                List.of("SUCCEEDED", "FAILED", "CANCELLED", "LOST")
                    .contains(execution(id, execution).path("state").asString()));
    return execution(id, execution).path("state").asString();
  }

  private static List<JsonNode> transcript(String id) {
    Api.Answer answer = api.get("/sessions/" + id + "/transcript?cursor=0");
    assertThat(answer.status()).as(answer.body()).isEqualTo(200);
    return answer.json().path("entries").valueStream().toList();
  }
}
