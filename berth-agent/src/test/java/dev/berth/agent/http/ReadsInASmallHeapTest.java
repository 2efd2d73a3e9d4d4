package dev.berth.agent.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.berth.protocol.node.NodeInfo;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * Many concurrent large reads do not need a large heap (issue 11: twenty reads of one session's 64
 * MiB output grew the node from 333 MB to 1.5 GB, each read being built whole in memory). The node
 * runs as a process of its own with a 64 MiB heap that exits on the first {@link OutOfMemoryError}.
 * Twenty readers, on connections with small receive buffers, ask for a full read each at once and
 * take the rest of their answers only once every one of them has its first byte, so a node that
 * built answers in memory would hold twenty of them (several MiB each for random bytes) at the same
 * moment: such a node dies here (checked by running this test against the former implementation
 * with the new cap), while a streaming one holds a few buffers per read.
 */
class ReadsInASmallHeapTest {

  private static final int READERS = 20;
  private static final int LOG_BYTES = 16_000_000;
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final String A = "a".repeat(32);

  @TempDir Path dir;
  private Process node;

  @AfterEach
  void stopNode() throws InterruptedException {
    if (node != null) {
      node.destroy();
      if (!node.waitFor(30, TimeUnit.SECONDS)) {
        node.destroyForcibly();
      }
    }
  }

  @Test
  void twentyConcurrentFullReadsOfALargeLogFitInASixtyFourMebibyteHeap() throws Exception {
    AgentApi api = startNode("-Xmx64m");
    assertThat(api.provision(A, 1).status()).isEqualTo(201);
    // Random bytes: the worst case for the text payload (U+FFFD and escapes everywhere).
    String execution = api.execute(A, "head -c " + LOG_BYTES + " /dev/urandom", 60);
    await()
        .atMost(WAIT)
        .until(
            () -> api.execution(A, execution).json().path("state").asString(), "SUCCEEDED"::equals);
    byte[] log = api.executionBytes(A, execution, 0);
    assertThat(log).hasSize(LOG_BYTES);

    for (int round = 0; round < 3; round++) {
      List<byte[]> answers;
      try {
        answers = readTogether(api.baseUrl(), api.token(), execution);
      } catch (RuntimeException | AssertionError e) {
        throw new AssertionError(
            "concurrent reads failed; the node's log ends: " + nodeLogTail(), e);
      }
      for (int reader = 0; reader < READERS; reader++) {
        long offset = offsetOf(reader);
        JsonNode read = AgentApi.JSON.readTree(answers.get(reader));
        byte[] bytes = Base64.getDecoder().decode(read.path("payloadBase64").asString());
        assertThat(read.path("offset").asLong()).isEqualTo(offset);
        assertThat(bytes).hasSize(OutputResponses.MAX_READ_BYTES);
        assertThat(bytes)
            .as("reader %d of round %d", reader, round)
            .isEqualTo(Arrays.copyOfRange(log, (int) offset, (int) offset + bytes.length));
      }
    }
    assertThat(node.isAlive()).as("node alive; see %s", dir.resolve("node.log")).isTrue();
  }

  /**
   * Sends every read at once, each on a connection with a small receive buffer; each reader takes
   * its answer's first bytes, waits for all the others to get that far, and only then takes the
   * rest. Until then the node must keep every answer it has not sent.
   */
  private List<byte[]> readTogether(String base, String token, String execution) {
    URI uri = URI.create(base);
    CountDownLatch begun = new CountDownLatch(READERS);
    List<CompletableFuture<byte[]>> answers = new ArrayList<>();
    for (int reader = 0; reader < READERS; reader++) {
      String path =
          "/v1/sessions/" + A + "/executions/" + execution + "/output?offset=" + offsetOf(reader);
      answers.add(
          CompletableFuture.supplyAsync(
              () -> readAfterOthersBegun(uri, path, token, begun),
              command -> Thread.ofVirtual().start(command)));
    }
    return answers.stream().map(answer -> answer.orTimeout(120, TimeUnit.SECONDS).join()).toList();
  }

  private static byte[] readAfterOthersBegun(
      URI base, String path, String token, CountDownLatch begun) {
    try (Socket socket = new Socket()) {
      socket.setReceiveBufferSize(4096);
      socket.setSoTimeout((int) WAIT.toMillis());
      socket.connect(new InetSocketAddress(base.getHost(), base.getPort()));
      socket
          .getOutputStream()
          .write(
              ("GET "
                      + path
                      + " HTTP/1.1\r\nHost: "
                      + base.getHost()
                      + "\r\nAuthorization: Bearer "
                      + token
                      + "\r\nConnection: close\r\n\r\n")
                  .getBytes(StandardCharsets.US_ASCII));
      InputStream in = socket.getInputStream();
      ByteArrayOutputStream response = new ByteArrayOutputStream();
      response.writeBytes(in.readNBytes(1));
      begun.countDown();
      if (!begun.await(WAIT.toSeconds(), TimeUnit.SECONDS)) {
        throw new AssertionError("not every reader got the first byte of its answer");
      }
      in.transferTo(response);
      return HttpAnswer.body(response.toByteArray());
    } catch (IOException e) {
      throw new AssertionError("read " + path + " failed", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  private String nodeLogTail() throws IOException {
    String log = Files.readString(dir.resolve("node.log"));
    return log.substring(Math.max(0, log.length() - 600));
  }

  private static long offsetOf(int reader) {
    return (long) reader * 700_000;
  }

  /** {@code NodeMain} in a JVM of its own, with this test's classpath. */
  private AgentApi startNode(String heap) throws IOException {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    node =
        new ProcessBuilder(
                java,
                "--enable-native-access=ALL-UNNAMED",
                heap,
                "-XX:+UseSerialGC",
                "-XX:+ExitOnOutOfMemoryError",
                "-cp",
                System.getProperty("java.class.path"),
                "dev.berth.agent.node.NodeMain",
                dir.toString())
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("node.log").toFile())
            .start();
    await().atMost(WAIT).until(() -> !node.isAlive() || NodeInfo.read(dir).isPresent());
    Optional<NodeInfo> info = NodeInfo.read(dir);
    assertThat(info).as("node.json of the node; it is alive: %s", node.isAlive()).isPresent();
    String token = Files.readString(dir.resolve("node.token")).strip();
    return new AgentApi(info.get().port(), token);
  }
}
