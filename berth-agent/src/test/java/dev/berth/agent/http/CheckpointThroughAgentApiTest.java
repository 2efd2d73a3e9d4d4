package dev.berth.agent.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.berth.agent.archive.ArchiveIdentity;
import dev.berth.agent.archive.ArchiveLimits;
import dev.berth.agent.archive.ArchiveRestorer;
import dev.berth.agent.host.HostConfig;
import dev.berth.core.operation.OperationId;
import dev.berth.core.operation.OperationType;
import dev.berth.core.session.SessionId;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The first half of a suspend through the agent API: a checkpoint pauses the real shell and streams
 * an archive of its state that restores elsewhere; giving it up lets the shell go on.
 */
class CheckpointThroughAgentApiTest {

  private static final String TOKEN = "c".repeat(64);
  private static final String SID = "c0ffee" + "0".repeat(26);
  private static final Duration WAIT = Duration.ofSeconds(20);

  @TempDir Path root;
  @TempDir Path elsewhere;
  private RunningHost running;
  private AgentApi api;

  @BeforeEach
  void startHost() {
    running = RunningHost.start(HostConfig.defaults(root, TOKEN));
    api = running.api();
    assertThat(api.provision(SID, 1).status()).isEqualTo(201);
  }

  @AfterEach
  void stopHost() {
    running.close();
  }

  @Test
  void aCheckpointPausesTheShellAndStreamsAnArchiveThatRestoresItsState() throws Exception {
    api.input(SID, "export MARKER=42; echo kept > ~/file.txt; echo ready-$((1+1))\n");
    await().atMost(WAIT).until(() -> api.text(SID, 0).contains("ready-2"));

    HttpResponse<InputStream> archive = prepare(2, 1);

    assertThat(archive.statusCode()).isEqualTo(200);
    assertThat(archive.headers().firstValue("X-Berth-Archive-Contents").orElse(""))
        .contains("home")
        .contains("environment");
    Path target = elsewhere.resolve("state");
    try (InputStream body = archive.body()) {
      ArchiveRestorer.restore(
          body, target, new ArchiveIdentity(SID, 1, Instant.now()), ArchiveLimits.defaults());
    }
    assertThat(target.resolve("home/file.txt")).hasContent("kept");
    assertThat(Files.readString(target.resolve("output").resolve(firstSegment(target))))
        .contains("ready-2");
    AgentApi.Answer refused = api.input(SID, "echo during\n");
    assertThat(refused.status()).isEqualTo(409);
    assertThat(refused.json().path("reason").asString()).isEqualTo("SUSPENDING");
    assertThat(api.status(SID).path("state").asString()).isEqualTo("paused");
  }

  @Test
  void abandoningACheckpointLetsTheShellGoOn() throws Exception {
    try (InputStream body = prepare(2, 1).body()) {
      body.readAllBytes();
    }

    AgentApi.Answer aborted =
        api.send(
            "POST",
            "/v1/sessions/" + SID + "/checkpoint/1/abort",
            "",
            java.util.Optional.of(command(3, OperationType.RESUME)));

    assertThat(aborted.status()).as(aborted.body()).isEqualTo(200);
    assertThat(api.status(SID).path("state").asString()).isEqualTo("running");
    assertThat(api.input(SID, "echo after-$((3+4))\n").status()).isEqualTo(200);
    await().atMost(WAIT).until(() -> api.text(SID, 0).contains("after-7"));
  }

  @Test
  void aCheckpointOfAStaleIntentIsRefusedAndPausesNothing() throws Exception {
    assertThat(api.lease(SID, 60, command(5, OperationType.RESUME)).status()).isEqualTo(200);

    HttpResponse<InputStream> stale = prepare(4, 1);

    assertThat(stale.statusCode()).isEqualTo(409);
    assertThat(api.status(SID).path("state").asString()).isEqualTo("running");
  }

  private HttpResponse<InputStream> prepare(long version, long generation) throws Exception {
    AgentApi.Command c = command(version, OperationType.SUSPEND);
    return HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(
                    URI.create(
                        "http://127.0.0.1:"
                            + running.server().port()
                            + "/v1/sessions/"
                            + SID
                            + "/checkpoint/prepare?generation="
                            + generation))
                .header("Authorization", "Bearer " + TOKEN)
                .header("X-Berth-Intent-Version", Long.toString(c.intentVersion()))
                .header("X-Berth-Deadline", c.deadline().toString())
                .header("X-Berth-Operation", c.operation())
                .POST(HttpRequest.BodyPublishers.noBody())
                .build(),
            HttpResponse.BodyHandlers.ofInputStream());
  }

  private static AgentApi.Command command(long version, OperationType type) {
    return AgentApi.Command.of(version, OperationId.of(new SessionId(SID), type, version).value());
  }

  private static String firstSegment(Path state) throws Exception {
    try (var files = Files.list(state.resolve("output"))) {
      return files
          .map(p -> p.getFileName().toString())
          .filter(n -> n.endsWith(".seg"))
          .sorted()
          .findFirst()
          .orElseThrow();
    }
  }
}
