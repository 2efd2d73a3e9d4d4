package dev.berth.agent.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.berth.agent.host.HostConfig;
import dev.berth.core.operation.OperationId;
import dev.berth.core.operation.OperationType;
import dev.berth.core.session.SessionId;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/** A real shell on a real PTY, driven through the agent API over real HTTP on loopback. */
class ShellThroughAgentApiTest {

  private static final String TOKEN = "t".repeat(64);
  private static final String A = "a".repeat(32);
  private static final String B = "b".repeat(32);
  private static final Duration WAIT = Duration.ofSeconds(20);

  @TempDir Path root;
  private RunningHost running;
  private AgentApi api;

  @BeforeEach
  void startHost() {
    running = RunningHost.start(HostConfig.defaults(root, TOKEN));
    api = running.api();
  }

  @AfterEach
  void stopHost() {
    running.close();
  }

  @Test
  void anExportedVariableIsReadBackByCursor() {
    provision(A);
    api.input(A, "export MARKER=42\n");
    long cursor = api.end(A);
    api.input(A, "echo \"marker:$MARKER\"\n");

    await().atMost(WAIT).until(() -> api.text(A, cursor).contains("marker:42"));
  }

  @Test
  void deltaReadsReturnOnlyNewBytesAndOffsetZeroReplaysInOrder() {
    provision(A);
    api.input(A, "echo first-$((1+1))\n");
    await().atMost(WAIT).until(() -> api.text(A, 0).contains("first-2"));
    long cursor = api.end(A);

    api.input(A, "echo second-$((2+2))\n");
    await().atMost(WAIT).until(() -> api.text(A, cursor).contains("second-4"));

    assertThat(api.text(A, cursor)).doesNotContain("first-2");
    String all = api.text(A, 0);
    assertThat(all.indexOf("first-2"))
        .isGreaterThanOrEqualTo(0)
        .isLessThan(all.indexOf("second-4"));
    JsonNode end = api.read(A, api.end(A));
    assertThat(end.path("payload").asString()).isEmpty();
  }

  @Test
  void aReadPastTheEndReturnsNothingAndTheCurrentLength() {
    provision(A);
    api.input(A, "echo hi\n");
    await().atMost(WAIT).until(() -> api.text(A, 0).contains("hi"));
    long length = api.end(A);

    JsonNode past = api.read(A, length + 1000);

    assertThat(past.path("payload").asString()).isEmpty();
    assertThat(past.path("nextOffset").asLong()).isGreaterThanOrEqualTo(length);
    assertThat(past.path("reset").asBoolean()).isTrue();
  }

  @Test
  void aLongCommandDoesNotBlockTheWrite() {
    provision(A);
    long started = System.nanoTime();

    AgentApi.Answer answer = api.input(A, "sleep 3; echo e2e-marker-$((40+2))\n");

    assertThat(answer.status()).isEqualTo(200);
    assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(2));
    await().atMost(WAIT).until(() -> api.text(A, 0).contains("e2e-marker-42"));
  }

  @Test
  void theStreamDeliversOutputBeforeTheCommandEnds() throws Exception {
    provision(A);
    long cursor = api.end(A);
    try (AgentApi.Stream stream = api.stream(A, "?offset=" + cursor, Optional.empty())) {
      assertThat(stream.status).isEqualTo(200);
      assertThat(stream.headers.get("content-type")).contains("text/event-stream");
      api.input(A, "echo begin-$((3*3)); sleep 4; echo finish-$((5*5))\n");
      long sent = System.nanoTime();

      StringBuilder seen = new StringBuilder();
      while (!seen.toString().contains("begin-9")) {
        AgentApi.Event event = stream.next().orElseThrow();
        if (event.type().equals("output")) {
          seen.append(new String(event.payload(), StandardCharsets.UTF_8));
        }
      }

      assertThat(Duration.ofNanos(System.nanoTime() - sent)).isLessThan(Duration.ofSeconds(3));
      assertThat(seen.toString()).doesNotContain("finish-25");
      assertThat(api.status(A).path("busy").asBoolean()).isTrue();
      assertThat(stream.comments).contains("connected");
    }
  }

  @Test
  void reconnectingWithLastEventIdResumesWithoutGapsOrDuplicates() throws Exception {
    provision(A);
    api.input(A, "for i in $(seq 1 200); do echo line-$i; sleep 0.005; done\n");
    ByteArrayOutputStream received = new ByteArrayOutputStream();
    long cursor = 0;
    // First connection: take a few events, then drop it mid-flight.
    try (AgentApi.Stream stream = api.stream(A, "?offset=0", Optional.empty())) {
      for (int i = 0; i < 3; i++) {
        AgentApi.Event event = nextOutput(stream);
        assertThat(event.json().path("offset").asLong()).isEqualTo(cursor);
        received.write(event.payload());
        cursor = Long.parseLong(event.id());
      }
    }
    await().atMost(WAIT).until(() -> api.text(A, 0).contains("line-200"));
    long end = api.end(A);

    // The reconnect names its cursor in Last-Event-ID, which wins over a wrong ?offset.
    try (AgentApi.Stream stream = api.stream(A, "?offset=0", Optional.of(Long.toString(cursor)))) {
      while (cursor < end) {
        AgentApi.Event event = nextOutput(stream);
        assertThat(event.json().path("offset").asLong()).isEqualTo(cursor);
        byte[] payload = event.payload();
        assertThat(payload.length).isEqualTo(event.json().path("nextOffset").asLong() - cursor);
        received.write(payload);
        cursor = Long.parseLong(event.id());
      }
    }

    // The prompt after the loop may land after `end` was read: compare what was received with the
    // same range of the log, which must hold everything up to `end` without gaps or duplicates.
    byte[] got = received.toByteArray();
    assertThat(got.length).isGreaterThanOrEqualTo((int) end);
    assertThat(got).isEqualTo(java.util.Arrays.copyOf(api.bytes(A, 0), got.length));
  }

  @Test
  void aCursorAheadOfTheOutputGetsAResetAndThenTheNewOutput() throws Exception {
    provision(A);
    api.input(A, "echo ready\n");
    await().atMost(WAIT).until(() -> api.text(A, 0).contains("ready"));
    long length = api.end(A);

    try (AgentApi.Stream stream = api.stream(A, "?offset=" + (length + 5000), Optional.empty())) {
      AgentApi.Event reset = stream.next().orElseThrow();
      assertThat(reset.type()).isEqualTo("reset");
      long resetTo = reset.json().path("nextOffset").asLong();
      assertThat(reset.id()).isEqualTo(Long.toString(resetTo));

      api.input(A, "echo after-reset\n");
      AgentApi.Event next = nextOutput(stream);
      assertThat(next.json().path("offset").asLong()).isEqualTo(resetTo);
    }
  }

  @Test
  void aNegativeOrNonIntegerCursorIsABadRequest() {
    provision(A);

    assertThat(api.send("GET", "/v1/sessions/" + A + "/stream?offset=-1", null).status())
        .isEqualTo(400);
    assertThat(api.send("GET", "/v1/sessions/" + A + "/stream?offset=abc", null).status())
        .isEqualTo(400);
    AgentApi.Answer bad = api.send("GET", "/v1/sessions/" + A + "/output?offset=1.5", null);
    assertThat(bad.status()).isEqualTo(400);
    assertThat(bad.json().path("reason").asString()).isEqualTo("INVALID_INPUT");
  }

  @Test
  void aMegabyteOfOutputArrivesIntactThroughReadsAndTheStream() throws Exception {
    provision(A);
    long cursor = api.end(A);
    StringBuilder expected = new StringBuilder();
    for (int i = 1; i <= 150_000; i++) {
      expected.append(i).append("\r\n");
    }
    api.input(A, "stty -echo; seq 1 150000; echo; echo seq-done-$((7*6))\n");
    await().atMost(Duration.ofSeconds(60)).until(() -> api.text(A, cursor).contains("seq-done-42"));

    String read = api.text(A, cursor);
    assertThat(read).contains(expected);
    assertThat(expected.length()).isGreaterThan(1_000_000);

    ByteArrayOutputStream streamed = new ByteArrayOutputStream();
    long end = api.end(A);
    try (AgentApi.Stream stream = api.stream(A, "?offset=" + cursor, Optional.empty())) {
      long at = cursor;
      while (at < end) {
        AgentApi.Event event = nextOutput(stream);
        assertThat(event.payload().length).isLessThanOrEqualTo(65_536);
        streamed.write(event.payload());
        at = Long.parseLong(event.id());
      }
    }
    assertThat(streamed.toString(StandardCharsets.UTF_8)).contains(expected);
  }

  @Test
  void invalidUtf8KeepsEveryEventsLengthEqualToItsCursorRange() throws Exception {
    provision(A);
    long cursor = api.end(A);
    api.input(A, "printf 'bad:\\xff\\xfe:\\xc3(:\\xe2\\x82:end\\n'; echo utf-done\n");
    await().atMost(WAIT).until(() -> api.text(A, cursor).contains("utf-done"));
    long end = api.end(A);

    List<AgentApi.Event> events = new ArrayList<>();
    try (AgentApi.Stream stream = api.stream(A, "?offset=" + cursor, Optional.empty())) {
      long at = cursor;
      while (at < end) {
        AgentApi.Event event = nextOutput(stream);
        events.add(event);
        at = Long.parseLong(event.id());
      }
    }

    ByteArrayOutputStream all = new ByteArrayOutputStream();
    for (AgentApi.Event event : events) {
      JsonNode data = event.json();
      assertThat(event.payload().length)
          .isEqualTo(data.path("nextOffset").asLong() - data.path("offset").asLong());
      all.write(event.payload());
    }
    byte[] bytes = all.toByteArray();
    assertThat(bytes).containsSequence((byte) 0xff, (byte) 0xfe);
  }

  @Test
  void killingOneSessionsShellLeavesItsRuntimeRunningAndTheOtherSessionUntouched()
      throws Exception {
    provision(A);
    provision(B);
    long pidA = api.status(A).path("shell").path("pid").asLong();

    ProcessHandle.of(pidA).orElseThrow().destroyForcibly();

    await()
        .atMost(WAIT)
        .until(() -> api.status(A).path("shell").path("state").asString().equals("exited"));
    JsonNode a = api.status(A);
    assertThat(a.path("state").asString())
        .as("the runtime outlives its shell")
        .isEqualTo("running");
    assertThat(a.path("health").asString()).isEqualTo("ok");
    assertThat(a.path("shell").path("lastExitStatus").asInt()).isEqualTo(137);
    await()
        .atMost(WAIT)
        .until(() -> api.text(A, 0).contains("the shell exited with status 137 (signal 9)"));
    assertThat(api.status(B).path("state").asString()).isEqualTo("running");
    assertThat(api.status(B).path("shell").path("pid").asLong()).isNotEqualTo(pidA);
    api.input(B, "echo still-$((10+1))\n");
    await().atMost(WAIT).until(() -> api.text(B, 0).contains("still-11"));
  }

  @Test
  void aShellThatExitedIsReplacedByTheNextInputWithTheWholeHistoryAndTheMarkerKept()
      throws Exception {
    provision(A);
    api.input(A, "echo before-$((40+2)); touch ~/kept-file\n");
    await().atMost(WAIT).until(() -> api.text(A, 0).contains("before-42"));

    api.input(A, "exit 3\n");
    await()
        .atMost(WAIT)
        .until(() -> api.status(A).path("shell").path("state").asString().equals("exited"));
    await()
        .atMost(WAIT)
        .until(() -> api.text(A, 0).contains("[berth] the shell exited with status 3;"));
    JsonNode exited = api.status(A);
    assertThat(exited.path("state").asString()).isEqualTo("running");
    assertThat(exited.path("shell").path("lastExitStatus").asInt()).isEqualTo(3);
    assertThat(exited.path("shell").path("starts").asInt()).isEqualTo(1);
    assertThat(exited.path("busy").asBoolean()).isFalse();

    AgentApi.Answer input = api.input(A, "ls ~; echo after-$((6*7))\n");

    assertThat(input.status()).as(input.body()).isLessThan(300);
    await().atMost(WAIT).until(() -> api.text(A, 0).contains("after-42"));
    String text = api.text(A, 0);
    assertThat(text)
        .contains("before-42", "[berth] a new shell starts (shell 2 of this runtime)", "kept-file");
    assertThat(text.indexOf("before-42"))
        .isLessThan(text.indexOf("the shell exited with status 3"))
        .isLessThan(text.indexOf("a new shell starts"));
    JsonNode again = api.status(A);
    assertThat(again.path("shell").path("state").asString()).isEqualTo("running");
    assertThat(again.path("shell").path("starts").asInt()).isEqualTo(2);
    assertThat(again.path("shell").path("pid").asLong()).isPositive();
  }

  @Test
  void aStaleIntentVersionIsRefusedAndLeavesNoTrace() throws Exception {
    provision(A);
    AgentApi.Answer lease = api.lease(A, 60, command(5, OperationType.RESUME));
    assertThat(lease.status()).as(lease.body()).isEqualTo(200);
    Path contract = root.resolve("sessions").resolve(A).resolve("contract.json");
    byte[] before = Files.readAllBytes(contract);
    api.input(A, "echo settled\n");
    await().atMost(WAIT).until(() -> api.text(A, 0).contains("settled"));
    Thread.sleep(200);
    long length = api.end(A);

    AgentApi.Answer staleInput =
        api.input(A, "echo stale-$((8*8))\n", command(4, OperationType.PROVISION));
    AgentApi.Answer staleTerminate = api.terminate(A, command(3, OperationType.TERMINATE));

    assertThat(staleInput.status()).isEqualTo(409);
    assertThat(staleInput.json().path("reason").asString()).isEqualTo("STALE_INTENT");
    assertThat(staleTerminate.status()).isEqualTo(409);
    assertThat(staleTerminate.json().path("reason").asString()).isEqualTo("STALE_INTENT");
    Thread.sleep(500);
    assertThat(Files.readAllBytes(contract)).isEqualTo(before);
    assertThat(api.end(A)).isEqualTo(length);
    JsonNode status = api.status(A);
    assertThat(status.path("state").asString()).isEqualTo("running");
    assertThat(status.path("tombstoned").asBoolean()).isFalse();
    assertThat(status.path("acceptedIntentVersion").asLong()).isEqualTo(5);
  }

  @Test
  void aTerminatedSessionRefusesEverythingButAnotherTerminate() {
    provision(A);
    AgentApi.Answer terminated = api.terminate(A, command(2, OperationType.TERMINATE));
    assertThat(terminated.status()).as(terminated.body()).isEqualTo(200);

    assertThat(api.status(A).path("state").asString()).isEqualTo("terminated");
    assertThat(api.input(A, "echo x\n").json().path("reason").asString())
        .isEqualTo("SESSION_TERMINATING");
    assertThat(api.terminate(A, command(2, OperationType.TERMINATE)).status()).isEqualTo(200);
    api.send("DELETE", "/v1/sessions/" + A, null);
    AgentApi.Answer again = api.provision(A, 2);
    assertThat(again.status()).isEqualTo(409);
    assertThat(again.json().path("reason").asString()).isEqualTo("SESSION_TERMINATING");
  }

  @Test
  void provisioningIsIdempotentByNameAndRefusesASecondIncarnation() {
    assertThat(api.provision(A, 1).status()).isEqualTo(201);
    assertThat(api.provision(A, 1).status()).isEqualTo(200);

    AgentApi.Answer other = api.provision(A, 2);

    assertThat(other.status()).isEqualTo(409);
    assertThat(other.json().path("reason").asString()).isEqualTo("RUNTIME_CONFLICT");
    assertThat(api.send("GET", "/v1/sessions", null).json().path("sessions")).hasSize(1);
  }

  @Test
  void removingARuntimeDeletesReadOnlyDirectoriesTheWorkloadLeftBehind() {
    provision(A);
    api.input(
        A,
        "mkdir -p ~/ro/inner && touch ~/ro/inner/f && chmod 555 ~/ro/inner ~/ro && echo ro-$((2+3))\n");
    await().atMost(WAIT).until(() -> api.text(A, 0).contains("ro-5"));
    Path runtime =
        root.resolve("sessions").resolve(A).resolve("runtimes").resolve("berth-" + A + "-1");

    AgentApi.Answer removed = api.send("DELETE", "/v1/sessions/" + A, null);

    assertThat(removed.status()).as(removed.body()).isEqualTo(204);
    assertThat(runtime).doesNotExist();
    assertThat(api.send("GET", "/v1/sessions/" + A + "/status", null).status()).isEqualTo(404);
  }

  @Test
  void everyRouteButHealthNeedsTheToken() {
    provision(A);

    AgentApi.Answer refused = api.unauthenticated("/v1/sessions/" + A + "/status");

    assertThat(refused.status()).isEqualTo(401);
    assertThat(refused.json().path("reason").asString()).isEqualTo("UNAUTHENTICATED");
    assertThat(api.unauthenticated("/healthz").status()).isEqualTo(200);
  }

  @Test
  void theShellRunsInItsOwnHomeWithTheContractedTerminal() {
    provision(A);
    long cursor = api.end(A);

    api.input(A, "echo \"home=$HOME pwd=$(pwd) term=$TERM size=$(stty size)\"\n");

    await().atMost(WAIT).until(() -> api.text(A, cursor).contains("size=24 80"));
    String line = api.text(A, cursor);
    assertThat(line).contains("term=xterm-256color");
    // Inside the sandbox the home is the same path in every incarnation.
    assertThat(line).contains("home=/home/berth pwd=/home/berth ");
  }

  @Test
  void theShellKeepsItsStateInTheRuntimeDirectoryAtEveryPrompt() {
    provision(A);
    Path runtime =
        root.resolve("sessions")
            .resolve(A)
            .resolve("runtimes")
            .resolve("berth-" + A + "-1")
            .resolve("volume")
            .resolve("state");

    api.input(A, "export MARKER=42; mkdir -p ~/x && cd ~/x\n");

    await()
        .atMost(WAIT)
        .until(
            () ->
                someSlotContains(
                    runtime.resolve("shell-state"),
                    "declare -x MARKER=\"42\"",
                    "__berth_saved_cwd=/home/berth/x\n"));
  }

  /** Local-contract headers for session A at {@code version}, a minute to go. */
  private static AgentApi.Command command(long version, OperationType type) {
    return AgentApi.Command.of(version, OperationId.of(new SessionId(A), type, version).value());
  }

  private void provision(String session) {
    AgentApi.Answer answer = api.provision(session, 1);
    assertThat(answer.status()).as(answer.body()).isEqualTo(201);
  }

  private static boolean someSlotContains(Path states, String... texts) throws IOException {
    for (String slot : List.of("state.0", "state.1")) {
      Path file = states.resolve(slot);
      if (Files.exists(file)) {
        String text = Files.readString(file);
        if (Stream.of(texts).allMatch(text::contains)) {
          return true;
        }
      }
    }
    return false;
  }

  private static AgentApi.Event nextOutput(AgentApi.Stream stream) throws Exception {
    while (true) {
      AgentApi.Event event = stream.next().orElseThrow();
      if (event.type().equals("output")) {
        return event;
      }
    }
  }
}
