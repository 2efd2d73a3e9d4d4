package dev.berth.agent.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.berth.agent.host.HostConfig;
import dev.berth.agent.output.OutputLog;
import dev.berth.agent.output.OutputSlice;
import dev.berth.core.session.SessionId;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * {@code GET output} answers at most {@link OutputResponses#MAX_READ_BYTES} per read, and a walk on
 * {@code nextOffset} gives back the log byte for byte (issue 11: one read used to be built whole in
 * memory, up to 8 MiB of payload at a time). Real shells and executions, real files, real HTTP.
 */
class BoundedReadsTest {

  private static final String TOKEN = "t".repeat(64);
  private static final String A = "a".repeat(32);
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final int CAP = OutputResponses.MAX_READ_BYTES;

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
  void aWalkOnNextOffsetReadsALargeLogInCappedPiecesThatAreTheLogByteForByte() {
    api.input(
        A, "stty -echo; head -c 3500000 /dev/urandom | base64 -w 0; echo; echo big-$((6*7))\n");
    await().atMost(WAIT).until(() -> tail().contains("big-42"));
    long end = api.end(A);
    assertThat(end).isGreaterThan(4L * CAP);

    ByteArrayOutputStream walked = new ByteArrayOutputStream();
    long at = 0;
    int reads = 0;
    while (at < end) {
      JsonNode read = api.read(A, at);
      byte[] bytes = Base64.getDecoder().decode(read.path("payloadBase64").asString());
      assertThat(read.path("offset").asLong()).as("offset of read %d", reads).isEqualTo(at);
      assertThat(bytes.length).as("bytes of read %d", reads).isBetween(1, CAP);
      assertThat(read.path("nextOffset").asLong()).isEqualTo(at + bytes.length);
      assertThat(read.path("reset").asBoolean()).isFalse();
      assertThat(read.path("payload").asString())
          .isEqualTo(new String(bytes, StandardCharsets.UTF_8));
      walked.writeBytes(bytes);
      at = read.path("nextOffset").asLong();
      reads++;
    }

    assertThat(reads).isGreaterThan(4);
    assertThat(walked.toByteArray()).isEqualTo(logBytes(A, end));
  }

  @Test
  void aLimitAboveTheCapIsAShortReadAndNotARefusal() {
    String execution = api.execute(A, "head -c 2500000 /dev/zero | tr '\\0' x", 30);
    await().atMost(WAIT).until(() -> finished(execution));

    JsonNode read = api.executionRead(A, execution, 100, 8L << 20);

    byte[] bytes = Base64.getDecoder().decode(read.path("payloadBase64").asString());
    assertThat(bytes).hasSize(CAP);
    assertThat(read.path("offset").asLong()).isEqualTo(100);
    assertThat(read.path("nextOffset").asLong()).isEqualTo(100 + CAP);
    assertThat(read.path("startOffset").asLong()).isZero();
    assertThat(read.path("payload").asString()).isEqualTo("x".repeat(CAP));
  }

  @Test
  void theTextPayloadOfBytesThatAreNotUtf8IsTheirLenientDecodingPieceByPiece() {
    // Random bytes: malformed sequences everywhere, also across the decoder's internal chunks.
    String execution = api.execute(A, "head -c 2200000 /dev/urandom", 30);
    await().atMost(WAIT).until(() -> finished(execution));
    byte[] all = api.executionBytes(A, execution, 0);
    assertThat(all).hasSize(2_200_000);

    long at = 0;
    while (at < all.length) {
      JsonNode read = api.executionRead(A, execution, at, CAP);
      byte[] bytes = Base64.getDecoder().decode(read.path("payloadBase64").asString());
      assertThat(bytes.length).isBetween(1, CAP);
      assertThat(bytes)
          .isEqualTo(java.util.Arrays.copyOfRange(all, (int) at, (int) at + bytes.length));
      assertThat(read.path("payload").asString())
          .isEqualTo(new String(bytes, StandardCharsets.UTF_8));
      at = read.path("nextOffset").asLong();
    }
  }

  @Test
  void aCursorPastTheEndIsAnEmptyResetReadAsBefore() {
    long end = api.end(A);

    JsonNode read = api.read(A, end + 5000);

    assertThat(read.path("payloadBase64").asString()).isEmpty();
    assertThat(read.path("payload").asString()).isEmpty();
    assertThat(read.path("reset").asBoolean()).isTrue();
    assertThat(read.path("nextOffset").asLong()).isGreaterThanOrEqualTo(end);
  }

  /** The log's bytes {@code [0, end)}, read from its segment files by the log itself. */
  private byte[] logBytes(String session, long end) {
    OutputLog log = running.host().output(new SessionId(session));
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    long at = 0;
    while (at < end) {
      OutputSlice slice = log.read(at, (int) Math.min(end - at, 1 << 16));
      bytes.writeBytes(slice.bytes());
      at = slice.endOffset();
    }
    return bytes.toByteArray();
  }

  private boolean finished(String execution) {
    String state = api.execution(A, execution).json().path("state").asString();
    return state.equals("SUCCEEDED");
  }

  private String tail() {
    return api.text(A, Math.max(0, api.end(A) - 100));
  }
}
