package dev.berth.agent.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.berth.agent.host.HostConfig;
import dev.berth.agent.testing.HostProcesses;
import dev.berth.core.execution.ExecutionId;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/** Commands run to completion beside a real shell, through the agent API over real HTTP. */
class ExecutionsThroughAgentApiTest {

  private static final String TOKEN = "t".repeat(64);
  private static final String A = "a".repeat(32);
  private static final Duration WAIT = Duration.ofSeconds(10);

  @TempDir Path root;
  private RunningHost running;
  private AgentApi api;

  @BeforeEach
  void startHost() {
    running = RunningHost.start(HostConfig.defaults(root, TOKEN));
    api = running.api();
    AgentApi.Answer provisioned = api.provision(A, 1);
    assertThat(provisioned.status()).as(provisioned.body()).isEqualTo(201);
  }

  @AfterEach
  void stopHost() {
    running.close();
  }

  @Test
  void aCommandThatExitsZeroSucceedsAndItsOutputIsReadable() {
    AgentApi.Answer started =
        api.startExecution(A, "{\"command\":\"echo exec-$((6*7))\",\"timeoutSeconds\":30}");

    assertThat(started.status()).as(started.body()).isEqualTo(201);
    JsonNode created = started.json();
    assertThat(created.path("id").asString()).matches("x-[0-9a-f]{24}");
    assertThat(created.path("state").asString()).isIn("RUNNING", "SUCCEEDED");
    assertThat(created.path("command").asString()).isEqualTo("echo exec-$((6*7))");
    JsonNode finished = awaitFinished(created.path("id").asString());
    assertThat(finished.path("state").asString()).isEqualTo("SUCCEEDED");
    assertThat(finished.path("exitCode").asInt()).isZero();
    assertThat(finished.path("timedOut").asBoolean()).isFalse();
    assertThat(finished.path("finishedAt").asString()).isNotEmpty();
    assertThat(api.executionText(A, created.path("id").asString())).isEqualTo("exec-42\n");
    assertThat(finished.path("output").path("nextOffset").asLong()).isEqualTo(8);
    JsonNode listed = api.send("GET", "/v1/sessions/" + A + "/executions", null).json();
    assertThat(listed.path("executions")).hasSize(1);
  }

  @Test
  void aCommandThatExitsNonZeroFailsWithItsExitCode() {
    String id = api.execute(A, "echo about-to-fail; exit 3", 30);

    JsonNode finished = awaitFinished(id);

    assertThat(finished.path("state").asString()).isEqualTo("FAILED");
    assertThat(finished.path("exitCode").asInt()).isEqualTo(3);
    assertThat(api.executionText(A, id)).isEqualTo("about-to-fail\n");
  }

  @Test
  void theStreamDeliversTheOutputAndEndsOnceTheExecutionFinished() throws Exception {
    String id = api.execute(A, "for i in 1 2 3; do echo part-$i; sleep 0.3; done", 30);

    byte[] streamed;
    try (AgentApi.Stream stream = api.executionStream(A, id, "?offset=0")) {
      assertThat(stream.status).isEqualTo(200);
      assertThat(stream.headers.get("content-type")).contains("text/event-stream");
      streamed = drainWithin(stream, Duration.ofSeconds(10));
    }

    JsonNode execution = api.execution(A, id).json();
    assertThat(execution.path("state").asString()).isEqualTo("SUCCEEDED");
    assertThat(new String(streamed, StandardCharsets.UTF_8)).isEqualTo("part-1\npart-2\npart-3\n");
    assertThat(streamed).isEqualTo(api.executionBytes(A, id, 0));
    assertThat(streamed.length).isEqualTo(execution.path("output").path("nextOffset").asInt());
  }

  @Test
  void aStreamOpenedAfterTheExecutionFinishedReplaysItsOutputAndEnds() throws Exception {
    String id = api.execute(A, "echo done-before-stream", 30);
    awaitFinished(id);

    try (AgentApi.Stream stream = api.executionStream(A, id, "?offset=5")) {
      byte[] streamed = drainWithin(stream, Duration.ofSeconds(5));

      assertThat(new String(streamed, StandardCharsets.UTF_8)).isEqualTo("before-stream\n");
    }
  }

  @Test
  void itRunsInTheShellsHomeWithTheShellsEnvironment() {
    String probe = "echo \"env:$(pwd)|$HOME|$PATH|$LANG|$TERM|$BERTH_RUNTIME:end\"";
    long cursor = api.end(A);
    api.input(A, probe + "\n");
    await().atMost(WAIT).until(() -> api.text(A, cursor).contains(":end\r\n"));
    String shellLine = envLine(api.text(A, cursor));

    String id = api.execute(A, probe, 30);
    awaitFinished(id);

    String executionLine = envLine(api.executionText(A, id));
    // Inside the sandbox both see the session's home at its stable path.
    assertThat(executionLine).startsWith("env:/home/berth|/home/berth|");
    assertThat(executionLine).isEqualTo(shellLine);
    assertThat(executionLine).contains("|xterm-256color|berth-" + A + "-1.");
  }

  @Test
  void cancellingEndsTheCommandAndItsChildrenQuickly() {
    String word = uniqueSleep();
    String id = api.execute(A, "sleep " + word + " & sleep " + word + "; wait", 30);
    await().atMost(WAIT).until(() -> HostProcesses.withArgument(word).size() == 2);

    long started = System.nanoTime();
    AgentApi.Answer cancelled = api.cancel(A, id);

    assertThat(cancelled.status()).as(cancelled.body()).isEqualTo(200);
    assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(4));
    JsonNode execution = cancelled.json();
    assertThat(execution.path("state").asString()).isEqualTo("CANCELLED");
    assertThat(execution.path("timedOut").asBoolean()).isFalse();
    assertThat(HostProcesses.withArgument(word)).isEmpty();
    assertThat(api.cancel(A, id).json().path("state").asString()).isEqualTo("CANCELLED");
  }

  @Test
  void aCommandThatOutlivesItsTimeoutIsCancelledAsTimedOut() {
    String word = uniqueSleep();
    String id = api.execute(A, "sleep " + word, 1);

    await().atMost(Duration.ofSeconds(6)).until(() -> finished(api.execution(A, id).json()));

    JsonNode execution = api.execution(A, id).json();
    assertThat(execution.path("state").asString()).isEqualTo("CANCELLED");
    assertThat(execution.path("timedOut").asBoolean()).isTrue();
    assertThat(HostProcesses.withArgument(word)).isEmpty();
  }

  @Test
  void anExecutionRunsBesideAShellThatIsBusyInTheForeground() {
    api.input(A, "sleep 5\n");
    await().atMost(WAIT).until(() -> api.status(A).path("busy").asBoolean());

    String id = api.execute(A, "echo beside-$((2*3))", 30);

    JsonNode finished = awaitFinished(id);
    assertThat(finished.path("state").asString()).isEqualTo("SUCCEEDED");
    assertThat(api.executionText(A, id)).isEqualTo("beside-6\n");
    JsonNode status = api.status(A);
    assertThat(status.path("busy").asBoolean()).isTrue();
    assertThat(status.path("foreground").asString()).isEqualTo("sleep");
  }

  @Test
  void theStatusSaysAnExecutionIsRunningWhileOneIs() {
    assertThat(api.status(A).path("executionRunning").asBoolean()).isFalse();
    String id = api.execute(A, "sleep " + uniqueSleep(), 30);

    assertThat(api.status(A).path("executionRunning").asBoolean()).isTrue();

    api.cancel(A, id);
    assertThat(api.status(A).path("executionRunning").asBoolean()).isFalse();
  }

  @Test
  void badBodiesAreRefusedAsInvalidInput() {
    List<String> bodies =
        List.of(
            "{\"command\":\"   \"}",
            "{\"command\":\"echo hi\",\"timeoutSeconds\":30,\"shell\":\"zsh\"}",
            "",
            "{\"command\":\"echo hi\",\"timeoutSeconds\":0}",
            "{\"command\":\"echo hi\",\"timeoutSeconds\":\"soon\"}",
            "[\"echo hi\"]");

    for (String body : bodies) {
      AgentApi.Answer answer = api.startExecution(A, body);

      assertThat(answer.status()).as("answer to %s: %s", body, answer.body()).isEqualTo(400);
      assertThat(answer.json().path("reason").asString()).isEqualTo("INVALID_INPUT");
      assertThat(answer.json().path("detail").asString()).isNotBlank();
    }
    assertThat(api.send("GET", "/v1/sessions/" + A + "/executions", null).json().path("executions"))
        .isEmpty();
  }

  @Test
  void badBodiesAreProblemDocuments() {
    AgentApi.Answer answer = api.startExecution(A, "{\"command\":\"\"}");

    assertThat(answer.status()).isEqualTo(400);
    assertThat(answer.json().path("type").asString()).isEqualTo("about:blank");
    assertThat(answer.json().path("session").asString()).isEqualTo(A);
    assertThat(answer.json().path("error").asString())
        .isEqualTo(answer.json().path("detail").asString());
  }

  @Test
  void anUnknownExecutionIsNotFound() {
    String unknown = ExecutionId.generate(new Random(11)).value();

    for (String path : List.of("", "/output", "/stream", "/cancel")) {
      String method = path.equals("/cancel") ? "POST" : "GET";
      AgentApi.Answer answer =
          api.send(method, "/v1/sessions/" + A + "/executions/" + unknown + path, "");

      assertThat(answer.status()).as("%s %s", method, path).isEqualTo(404);
      assertThat(answer.json().path("reason").asString()).isEqualTo("NOT_FOUND");
    }
  }

  @Test
  void aSessionWhoseShellExitedStillRunsExecutionsInItsRuntime() {
    api.input(A, "exit\n");
    await()
        .atMost(WAIT)
        .until(() -> api.status(A).path("shell").path("state").asString().equals("exited"));

    AgentApi.Answer answer =
        api.startExecution(A, "{\"command\":\"echo not-too-late\",\"timeoutSeconds\":30}");

    assertThat(answer.status()).as(answer.body()).isEqualTo(201);
    JsonNode done = awaitFinished(answer.json().path("id").asString());
    assertThat(done.path("exitCode").asInt()).isZero();
    assertThat(api.status(A).path("shell").path("state").asString())
        .as("an execution does not start the shell")
        .isEqualTo("exited");
  }

  private JsonNode awaitFinished(String id) {
    await().atMost(WAIT).until(() -> finished(api.execution(A, id).json()));
    return api.execution(A, id).json();
  }

  private static boolean finished(JsonNode execution) {
    return !List.of("QUEUED", "RUNNING").contains(execution.path("state").asString());
  }

  /** Reads every output event until the stream ends; fails if it has not ended by then. */
  private static byte[] drainWithin(AgentApi.Stream stream, Duration limit) throws Exception {
    return CompletableFuture.supplyAsync(
            () -> {
              ByteArrayOutputStream all = new ByteArrayOutputStream();
              try {
                Optional<AgentApi.Event> event;
                while ((event = stream.next()).isPresent()) {
                  if (event.get().type().equals("output")) {
                    all.writeBytes(event.get().payload());
                  }
                }
              } catch (IOException e) {
                throw new UncheckedIOException(e);
              }
              return all.toByteArray();
            })
        .get(limit.toMillis(), TimeUnit.MILLISECONDS);
  }

  private static String envLine(String output) {
    return output
        .lines()
        .map(String::strip)
        .filter(line -> line.startsWith("env:/") && line.endsWith(":end"))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no env line in " + output));
  }

  /** A sleep argument no other process on this machine has, to find its processes by. */
  private static String uniqueSleep() {
    return "30." + (100_000 + ThreadLocalRandom.current().nextInt(900_000));
  }
}
