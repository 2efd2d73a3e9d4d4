package dev.berth.agent.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.berth.agent.agentcli.FakeModelProvider;
import dev.berth.agent.host.HostConfig;
import dev.berth.agent.isolation.Sandbox;
import dev.berth.core.operation.OperationId;
import dev.berth.core.operation.OperationType;
import dev.berth.core.session.SessionId;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * A session's shared directory through the agent protocol: the real Claude Code CLI in the real
 * sandbox, the fake provider asking for Bash commands ({@code run: ...}) as a model would. Two
 * sessions of a type that has it each get their own {@code /shared}; one never sees the other's
 * files; what a session left there comes back with its snapshot; a session of a type without it has
 * no {@code /shared} at all.
 */
class SharedDirectoryThroughAgentApiTest {

  private static final String TOKEN = "sk-shared-dir-provider-token-31415926";
  private static final String FIRST = "5a1ed0" + "0".repeat(25) + "1";
  private static final String SECOND = "5a1ed0" + "0".repeat(25) + "2";
  private static final String PLAIN = "5a1ed0" + "0".repeat(25) + "3";
  private static final Duration RUN = Duration.ofSeconds(120);

  @TempDir Path root;
  private FakeModelProvider provider;
  private RunningHost running;
  private AgentApi api;

  @BeforeEach
  void start() throws Exception {
    assertThat(Sandbox.detect(Path.of("/sys/fs/cgroup")).isolation().sandbox())
        .as("bubblewrap must work here")
        .isEqualTo("bwrap");
    provider = FakeModelProvider.https(Files.createDirectories(root.resolve("provider")));
    running = RunningHost.start(HostConfig.defaults(root.resolve("node"), "n".repeat(40)));
    api = running.api();
  }

  @AfterEach
  void stop() {
    if (running != null) {
      running.close();
    }
    if (provider != null) {
      provider.close();
    }
  }

  @Test
  void eachSessionHasItsOwnSharedDirectoryWhichNoOtherSeesAndWhichComesBackWithItsSnapshot()
      throws Exception {
    assertThat(provision(FIRST, 1, false, true).status()).isEqualTo(201);
    assertThat(provision(SECOND, 1, false, true).status()).isEqualTo(201);

    String wrote =
        toolResult(
            FIRST,
            "run: echo kept-$((40+2)) > \"$BERTH_SHARED_DIR/a.txt\"; echo wrote-in-$BERTH_SHARED_DIR");
    assertThat(wrote).contains("wrote-in-/shared");
    assertThat(sharedFiles()).singleElement().satisfies(f -> assertThat(f).hasContent("kept-42"));

    String seen =
        toolResult(SECOND, "run: cat /shared/a.txt; echo entries-$(ls -A /shared | wc -l)-end");
    assertThat(seen).contains("No such file", "entries-0-end").doesNotContain("kept-42");

    AgentApi.Bytes archive = api.checkpoint(FIRST, 1, command(FIRST, 2, OperationType.SUSPEND));
    assertThat(archive.status()).as(archive.text()).isEqualTo(200);
    assertThat(api.send("DELETE", "/v1/sessions/" + FIRST + "?runtime=" + runtime(FIRST, 1), null))
        .extracting(AgentApi.Answer::status)
        .isEqualTo(204);
    assertThat(sharedFiles()).as("the first runtime's state is gone").isEmpty();
    assertThat(provision(FIRST, 2, true, true).status()).isEqualTo(201);
    AgentApi.Answer restored =
        api.restore(
            FIRST, runtime(FIRST, 2), 1, archive.body(), command(FIRST, 3, OperationType.RESUME));
    assertThat(restored.status()).as(restored.body()).isEqualTo(200);

    assertThat(toolResult(FIRST, "run: echo back-$(cat /shared/a.txt) | tee /shared/b.txt"))
        .as("the restored directory is the session's to read and to write")
        .contains("back-kept-42")
        .doesNotContain("Permission denied");
    try (Stream<Path> files = Files.walk(root.resolve("node"))) {
      assertThat(files.filter(f -> f.endsWith(Path.of("shared", "b.txt"))))
          .singleElement()
          .satisfies(f -> assertThat(f).hasContent("back-kept-42"));
    }
  }

  @Test
  void aSessionOfATypeWithoutASharedDirectoryHasNoSharedDirectoryAndNoVariable() {
    assertThat(provision(PLAIN, 1, false, false).status()).isEqualTo(201);

    String seen =
        toolResult(
            PLAIN,
            "run: test -e /shared && echo has-shared || echo no-shared; echo var=[$BERTH_SHARED_DIR]");

    assertThat(seen).contains("no-shared", "var=[]");
  }

  /** The result of the Bash call {@code prompt} asks for, as the CLI sent it to the model. */
  private String toolResult(String session, String prompt) {
    int before = provider.answersAsked().size();
    AgentApi.Answer queued = api.send("POST", "/v1/sessions/" + session + "/prompts", prompt);
    assertThat(queued.status()).as(queued.body()).isEqualTo(202);
    String execution = queued.json().path("executionId").asString();
    await()
        .atMost(RUN)
        .until(
            () ->
                !List.of("QUEUED", "RUNNING")
                    .contains(
                        api.send(
                                "GET", "/v1/sessions/" + session + "/executions/" + execution, null)
                            .json()
                            .path("state")
                            .asString()));
    JsonNode finished =
        api.send("GET", "/v1/sessions/" + session + "/executions/" + execution, null).json();
    assertThat(finished.path("state").asString()).as(api.text(session, 0)).isEqualTo("SUCCEEDED");
    StringBuilder results = new StringBuilder();
    List<FakeModelProvider.Received> asked = provider.answersAsked();
    for (FakeModelProvider.Received request : asked.subList(before, asked.size())) {
      for (JsonNode message : AgentApi.JSON.readTree(request.body()).path("messages")) {
        for (JsonNode block : message.path("content")) {
          if (block.path("type").asString("").equals("tool_result")) {
            results.append(block.path("content").toString());
          }
        }
      }
    }
    assertThat(results).as("the run's requests carry the command's result").isNotEmpty();
    return results.toString();
  }

  private AgentApi.Answer provision(
      String session, long incarnation, boolean awaitRestore, boolean shared) {
    Map<String, Object> providerWire = new LinkedHashMap<>();
    providerWire.put("name", "fake");
    providerWire.put("baseUrl", provider.url().toString());
    providerWire.put("token", TOKEN);
    providerWire.put("api", "anthropic");
    providerWire.put("caFile", provider.caCertificate().toString());
    Map<String, Object> agent = new LinkedHashMap<>();
    agent.put("cli", claude().toString());
    agent.put("model", "platform-default");
    agent.put("provider", providerWire);
    if (shared) {
      agent.put("shared", true);
    }
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("runtime", runtime(session, incarnation));
    body.put("incarnation", incarnation);
    body.put("workload", "claude-code");
    body.put(
        "labels",
        Map.of(
            "berth.dev/installation",
            "test",
            "berth.dev/session",
            session,
            "berth.dev/incarnation",
            Long.toString(incarnation)));
    body.put("awaitRestore", awaitRestore);
    body.put("agent", agent);
    return api.send(
        "PUT", "/v1/sessions/" + session, AgentApi.JSON.writeValueAsString(body), Optional.empty());
  }

  /** Every session's {@code shared/a.txt} on the node's disk. */
  private List<Path> sharedFiles() throws IOException {
    try (Stream<Path> files = Files.walk(root.resolve("node"))) {
      return files.filter(f -> f.endsWith(Path.of("shared", "a.txt"))).toList();
    }
  }

  private static String runtime(String session, long incarnation) {
    return "berth-" + session + "-" + incarnation;
  }

  private static AgentApi.Command command(String session, long version, OperationType type) {
    return AgentApi.Command.of(
        version, OperationId.of(new SessionId(session), type, version).value());
  }

  private static Path claude() {
    Path bin =
        Path.of("..", "tools", "agent-clis", "node_modules", ".bin", "claude")
            .toAbsolutePath()
            .normalize();
    assertThat(bin)
        .as("the claude CLI; bin/ensure-test-tools installs it (npm ci in tools/agent-clis)")
        .isExecutable();
    return bin;
  }
}
