package dev.berth.agent.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.berth.agent.host.HostConfig;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/** {@code GET attach}: a real shell on a real PTY as an interactive terminal over a WebSocket. */
class AttachSocketTest {

  private static final String TOKEN = "t".repeat(64);
  private static final String A = "a".repeat(32);
  private static final Duration WAIT = Duration.ofSeconds(10);
  private static final Duration FLOOD = Duration.ofSeconds(30);

  @TempDir Path root;
  private RunningHost running;
  private AgentApi api;
  private final List<AttachClient> clients = new ArrayList<>();

  @BeforeEach
  void startHost() {
    running = RunningHost.start(HostConfig.defaults(root, TOKEN));
    api = running.api();
    AgentApi.Answer provisioned = api.provision(A, 1);
    assertThat(provisioned.status()).as(provisioned.body()).isEqualTo(201);
  }

  @AfterEach
  void stopHost() {
    clients.forEach(AttachClient::disconnect);
    running.close();
  }

  @Test
  void theFirstFrameSaysWhereTheOutputStarts() {
    api.input(A, "echo before-attach\n");
    await().atMost(WAIT).until(() -> api.text(A, 0).contains("before-attach"));
    long cursor = api.end(A);

    AttachClient client = attach("?offset=" + cursor);

    await().atMost(WAIT).until(() -> !client.frames().isEmpty());
    AttachClient.Frame first = client.frames().getFirst();
    assertThat(first.isText()).isTrue();
    assertThat(first.json().path("type").asString()).isEqualTo("attached");
    assertThat(first.json().path("offset").asLong()).isEqualTo(cursor);
  }

  @Test
  void binaryFramesAreInputAndTheOutputComesBackAsBinaryFrames() {
    AttachClient client = attach("?offset=" + api.end(A));
    await().atMost(WAIT).until(() -> !client.messages().isEmpty());

    client.type("echo $((6*7))\n");

    // The terminal echoes the typed line, which does not contain 42; only the result does.
    await()
        .atMost(WAIT)
        .untilAsserted(
            () ->
                assertThat(client.outputText())
                    .as("attach output; log: %s", api.text(A, 0))
                    .contains("42\r\n"));
    assertThat(client.frames().stream().skip(1).noneMatch(AttachClient.Frame::isText)).isTrue();
  }

  @Test
  void aShellThatExitsIsAnnouncedAfterItsMarkerAndTheNextKeyStartsANewShellOnTheSameSocket() {
    AttachClient client = attach("?offset=" + api.end(A));
    await().atMost(WAIT).until(() -> !client.messages().isEmpty());

    client.type("exit 7\n");

    await()
        .atMost(WAIT)
        .until(
            () ->
                client.messages().stream()
                    .anyMatch(m -> m.path("type").asString().equals("shell-exited")));
    JsonNode exited =
        client.messages().stream()
            .filter(m -> m.path("type").asString().equals("shell-exited"))
            .findFirst()
            .orElseThrow();
    assertThat(exited.path("status").asInt()).isEqualTo(7);
    assertThat(exited.path("shell").asInt()).isEqualTo(1);
    assertThat(client.outputText()).contains("[berth] the shell exited with status 7;");
    // A resize while no shell runs is kept for the next one.
    client.sendText("{\"type\":\"resize\",\"cols\":101,\"rows\":33}");

    client.type("echo again-$((6*7)) \"size=$(stty size)\"\n");

    await().atMost(WAIT).until(() -> client.outputText().contains("again-42 size=33 101\r\n"));
    assertThat(client.outputText())
        .contains("[berth] a new shell starts (shell 2 of this runtime)");
    assertThat(errors(client)).isEmpty();
  }

  @Test
  void attachingToARuntimeWhoseShellExitedStartsANewShell() {
    api.input(A, "exit\n");
    await()
        .atMost(WAIT)
        .until(() -> api.status(A).path("shell").path("state").asString().equals("exited"));

    AttachClient client = attach("?offset=" + api.end(A));

    await()
        .atMost(WAIT)
        .until(() -> api.status(A).path("shell").path("state").asString().equals("running"));
    client.type("echo fresh-$((6*7))\n");
    await().atMost(WAIT).until(() -> client.outputText().contains("fresh-42\r\n"));
    assertThat(api.status(A).path("shell").path("starts").asInt()).isEqualTo(2);
  }

  @Test
  void aReplayedVimSessionAsksTheAttachingTerminalNothingWhileTheLogKeepsItsBytes() {
    // Real vim on the runtime's PTY: at start-up it asks the terminal for the cursor position,
    // its device attributes and its colours.
    api.input(A, "TERM=xterm-256color vim -N -u NONE -i NONE /tmp/replay.txt\n");
    await().atMost(WAIT).until(() -> api.text(A, 0).contains("\u001b[?1049h"));
    api.input(A, "\u001b:q!\r");
    await().atMost(WAIT).until(() -> api.text(A, 0).contains("\u001b[?1049l"));
    String log = api.text(A, 0);
    List<String> queries = TerminalQueries.in(log);
    assertThat(queries).as("what vim asked, in the log").isNotEmpty();
    long end = api.end(A);

    AttachClient client = attach("?offset=0");

    await().atMost(WAIT).until(() -> client.outputSize() >= end);
    byte[] replayed = Arrays.copyOf(client.output(), (int) end);
    String text = new String(replayed, StandardCharsets.ISO_8859_1);
    assertThat(replayed).as("every byte is replayed").hasSize((int) end);
    assertThat(TerminalQueries.in(text)).as("what the attaching terminal would answer").isEmpty();
    assertThat(text).contains("\u001b[?1049h", "\u001b[?1049l");
    assertThat(client.messages().getFirst().path("live").asLong()).isGreaterThanOrEqualTo(end);
  }

  @Test
  void attachingFromZeroReplaysTheEarlierOutputInOrder() {
    api.input(A, "for i in $(seq 1 300); do echo replay-$i; done\n");
    await().atMost(WAIT).until(() -> api.text(A, 0).contains("replay-300\r\n"));
    long end = api.end(A);

    AttachClient client = attach("?offset=0");

    await().atMost(WAIT).until(() -> client.outputSize() >= end);
    byte[] replayed = Arrays.copyOf(client.output(), (int) end);
    assertThat(replayed)
        .as("no queries in it: replayed as written")
        .isEqualTo(api.bytes(A, 0, end));
    String text = new String(replayed, StandardCharsets.UTF_8);
    assertThat(text.indexOf("replay-1\r\n")).isLessThan(text.indexOf("replay-300\r\n"));
    assertThat(client.messages().getFirst().path("offset").asLong()).isZero();
  }

  @Test
  void aResizeMessageChangesTheTerminalSize() {
    AttachClient client = attach("?offset=" + api.end(A));

    client.sendText("{\"type\":\"resize\",\"cols\":120,\"rows\":40}");
    client.type("echo \"size=$(stty size)\"\n");

    await().atMost(WAIT).until(() -> client.outputText().contains("size=40 120"));
    JsonNode shell = api.status(A).path("shell");
    assertThat(shell.path("cols").asInt()).isEqualTo(120);
    assertThat(shell.path("rows").asInt()).isEqualTo(40);
    assertThat(client.messages()).noneMatch(m -> m.path("type").asString().equals("error"));
  }

  @Test
  void anInvalidResizeOrAnUnknownMessageIsAnsweredWithAnErrorAndTheShellKeepsWorking() {
    AttachClient client = attach("?offset=" + api.end(A));
    List<String> refused =
        List.of(
            "{\"type\":\"resize\",\"cols\":0,\"rows\":40}",
            "{\"type\":\"resize\",\"cols\":5000,\"rows\":40}",
            "{\"type\":\"paste\",\"data\":\"rm -rf /\"}",
            "not json at all");

    refused.forEach(client::sendText);

    await().atMost(WAIT).until(() -> errors(client).size() == refused.size());
    for (JsonNode error : errors(client)) {
      assertThat(error.path("reason").asString()).isEqualTo("INVALID_INPUT");
      assertThat(error.path("error").asString()).isNotBlank();
    }
    client.type("echo \"still=$((20+1)) size=$(stty size)\"\n");
    await().atMost(WAIT).until(() -> client.outputText().contains("still=21 size=24 80"));
    assertThat(client.closed()).isNotDone();
  }

  @Test
  void aWrongOrMissingTokenClosesWithPolicyViolationWithoutAttaching() throws Exception {
    List<Optional<String>> refused =
        List.of(Optional.of("Bearer " + "w".repeat(64)), Optional.of(TOKEN), Optional.empty());

    for (Optional<String> authorization : refused) {
      AttachClient client = api.attach(A, "?offset=0", authorization, false);
      clients.add(client);

      AttachClient.Close close = client.closed().get(10, TimeUnit.SECONDS);
      assertThat(close.code()).as("close for %s", authorization).isEqualTo(1008);
      assertThat(client.frames()).as("frames for %s", authorization).isEmpty();
    }
  }

  @Test
  void aReaderThatNeverReadsBlocksNeitherTheShellNorTheOtherClients() {
    long cursor = api.end(A);
    AttachClient first = attach("?offset=" + cursor);
    AttachClient second = attach("?offset=" + cursor);
    AttachClient stalled = stalled("?offset=" + cursor);

    // Far more than the socket buffers of the stalled connection hold (about 16 MB).
    api.input(A, "stty -echo; seq 1 2000000; echo flood-done-$((6*7))\n");

    await().atMost(FLOOD).until(() -> tail().contains("flood-done-42"));
    long end = api.end(A);
    assertThat(end - cursor).isGreaterThan(14_000_000);
    byte[] expected = api.bytes(A, cursor, end);
    for (AttachClient reader : List.of(first, second)) {
      await().atMost(FLOOD).until(() -> reader.outputSize() >= expected.length);
      assertThat(Arrays.copyOf(reader.output(), expected.length)).isEqualTo(expected);
    }
    assertThat(stalled.outputSize()).isZero();
    api.input(A, "echo responsive-$((9*9))\n");
    await().atMost(WAIT).until(() -> api.text(A, end).contains("responsive-81"));
    await().atMost(WAIT).until(() -> first.outputText().contains("responsive-81"));
  }

  /**
   * The host sends a client no further than it takes: a client that stopped reading holds about one
   * frame of the host's memory, not everything the shell wrote since. Measured on this JVM's heap,
   * which the host shares with the test, with a margin of several times the noise.
   */
  @Test
  void aReaderThatNeverReadsDoesNotMakeTheHostBufferTheOutputForIt() {
    AttachClient stalled = stalled("?offset=" + api.end(A));
    long before = usedHeapAfterGc();

    api.input(A, "stty -echo; seq 1 4000000; echo flood-done-$((6*7))\n");

    await().atMost(FLOOD).until(() -> tail().contains("flood-done-42"));
    assertThat(api.end(A)).isGreaterThan(30_000_000);
    long grown = usedHeapAfterGc() - before;
    assertThat(grown).as("heap grown while one client stalled, bytes").isLessThan(12L << 20);
    assertThat(stalled.closed()).isNotDone();
  }

  @Test
  void anInputFrameOverSixtyFourKibibytesClosesWithMessageTooBig() throws Exception {
    AttachClient client = attach("?offset=0");
    await().atMost(WAIT).until(() -> !client.frames().isEmpty());
    byte[] tooBig = new byte[64 * 1024 + 1];
    Arrays.fill(tooBig, (byte) 'x');

    try {
      client.send(tooBig);
    } catch (RuntimeException closedWhileSending) {
      // The host may close before the whole frame was written.
    }

    assertThat(client.closed().get(10, TimeUnit.SECONDS).code()).isEqualTo(1009);
    long cursor = api.end(A);
    api.input(A, "echo after-big-frame-$((3+4))\n");
    await().atMost(WAIT).until(() -> api.text(A, cursor).contains("after-big-frame-7"));
    assertThat(api.text(A, 0)).doesNotContain("xxxxxxxx");
  }

  @Test
  void aCursorAheadOfTheOutputGetsAResetAndThenTheNewOutput() {
    long length = api.end(A);

    AttachClient client = attach("?offset=" + (length + 5000));
    await().atMost(WAIT).until(() -> client.messages().size() == 2);
    client.type("echo after-reset-$((5*5))\n");

    await().atMost(WAIT).until(() -> client.outputText().contains("after-reset-25"));
    List<JsonNode> messages = client.messages();
    assertThat(messages.get(0).path("type").asString()).isEqualTo("attached");
    assertThat(messages.get(1).path("type").asString()).isEqualTo("reset");
    long resetTo = messages.get(1).path("nextOffset").asLong();
    assertThat(resetTo).isGreaterThanOrEqualTo(length);
    assertThat(client.output()).startsWith(api.bytes(A, resetTo, resetTo + 10));
  }

  private AttachClient attach(String query) {
    AttachClient client = api.attach(A, query, false);
    clients.add(client);
    assertThat(client.openFailure()).isEmpty();
    return client;
  }

  /** The last hundred bytes of the output, or all of it when it is shorter. */
  private String tail() {
    return api.text(A, Math.max(0, api.end(A) - 100));
  }

  private AttachClient stalled(String query) {
    AttachClient client = api.attach(A, query, true);
    clients.add(client);
    await().atMost(WAIT).until(() -> client.frames().size() == 1);
    return client;
  }

  private static long usedHeapAfterGc() {
    Runtime runtime = Runtime.getRuntime();
    for (int i = 0; i < 3; i++) {
      System.gc();
    }
    return runtime.totalMemory() - runtime.freeMemory();
  }

  private static List<JsonNode> errors(AttachClient client) {
    return client.messages().stream()
        .filter(m -> m.path("type").asString().equals("error"))
        .toList();
  }
}
