package dev.berth.server.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The output streams' cursors ({@code ?offset=}, {@code ?cursor=}, {@code Last-Event-ID}), the
 * other query parameters, and the attach WebSocket's frames, fuzzed on tenant B's own session: a
 * bad value is a 4xx problem (or, on the WebSocket, a close with a code), never a 5xx, a hang, or a
 * session that no longer serves. Seeded like {@link RequestFuzzTest}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith(TwoTenants.Shared.class)
class StreamFuzzTest {

  private static final int QUERIES = RequestFuzzTest.FULL ? 1500 : 80;
  private static final int FRAMES = RequestFuzzTest.FULL ? 2000 : 60;

  private static final String[] VALUES = {
    "",
    "0",
    "-1",
    "abc",
    "1e3",
    "0x10",
    " 1",
    "1 ",
    "99999999999999999999",
    "9223372036854775807",
    "-9223372036854775808",
    "9223372036854775808",
    "1.5",
    "NaN",
    "1;2",
    "1,2",
    "%00",
    "%FF%FE",
    "%C3%28",
    "%0d%0aX-Injected:%201",
    "9".repeat(4000),
    "\u00e9".repeat(60),
    "../../etc/passwd",
    "running,idle",
    "deleted",
    "true",
    "2026-13-45T99:00:00Z",
    "null",
    "[]"
  };

  /** Query strings and headers to fuzz: path, the parameter or header, and whether it streams. */
  private record Knob(String path, String name, boolean header) {}

  private TwoTenants t;
  private String executionB;
  private String operationB;

  @BeforeAll
  void target(TwoTenants target) {
    t = target;
    String session = "/api/v1/sessions/" + t.sessionB;
    executionB =
        TwoTenants.json(
                t.send("POST", session + "/executions", t.tokenB, "{\"command\":\"echo fuzz\"}"))
            .path("id")
            .asString();
    operationB =
        TwoTenants.json(t.send("GET", session + "/operations", t.tokenB, null))
            .path("operations")
            .get(0)
            .path("id")
            .asString();
  }

  private List<Knob> knobs() {
    String s = "/api/v1/sessions/" + t.sessionB;
    return List.of(
        new Knob(s + "/stream", "offset", false),
        new Knob(s + "/stream", "Last-Event-ID", true),
        new Knob(s + "/executions/" + executionB + "/output", "offset", false),
        new Knob(s + "/executions/" + executionB + "/output", "Last-Event-ID", true),
        new Knob(s + "/transcript", "cursor", false),
        new Knob(s + "/transcript", "limit", false),
        new Knob(s + "/transcript/stream", "cursor", false),
        new Knob(s + "/transcript/stream", "Last-Event-ID", true),
        new Knob("/api/v1/operations/" + operationB + "/events", "Last-Event-ID", true),
        new Knob("/api/v1/sessions", "limit", false),
        new Knob("/api/v1/sessions", "state", false),
        new Knob("/api/v1/sessions", "pageToken", false),
        new Knob("/api/v1/sessions", "deleted", false),
        new Knob(s + "/approvals", "state", false),
        new Knob("/api/v1/admin/audit?session=" + t.sessionB, "after", false),
        new Knob("/api/v1/admin/audit?session=" + t.sessionB, "limit", false),
        new Knob("/api/v1/admin/audit?session=" + t.sessionB, "since", false),
        new Knob("/api/v1/admin/audit", "session", false));
  }

  @Test
  void fuzzedCursorsAndQueryParametersAreA4xxProblemOrAStreamNeverA5xxOrAHang() throws Exception {
    long seed = RequestFuzzTest.seed();
    System.out.println("cursor fuzz: seed " + seed + " (re-run with -Dberth.seed=" + seed + ")");
    SplittableRandom random = new SplittableRandom(seed);
    List<Knob> knobs = knobs();
    List<String> failures = new ArrayList<>();
    for (int i = 0; i < QUERIES; i++) {
      Knob knob = knobs.get(random.nextInt(knobs.size()));
      String value = VALUES[random.nextInt(VALUES.length)];
      String what = "#" + i + " " + knob.path() + " " + knob.name() + "=" + shorten(value);
      try {
        answer(knob, value).ifPresent(p -> failures.add(what + ": " + p));
      } catch (AssertionError | IllegalArgumentException e) {
        failures.add(what + ": " + e.getMessage());
      }
    }

    assertThat(failures).as("seed %s: cursors answered with a 5xx or no answer", seed).isEmpty();
    assertThat(
            t.send("GET", "/api/v1/sessions/" + t.sessionB + "/runtime", t.tokenB, null)
                .statusCode())
        .as("B's session still serves")
        .isEqualTo(200);
  }

  /** What is wrong with the answer to {@code knob} set to {@code value}: a streamed 200 is fine. */
  private Optional<String> answer(Knob knob, String value) throws Exception {
    String uri = knob.path();
    HttpRequest.Builder request = HttpRequest.newBuilder().timeout(TwoTenants.REQUEST_TIMEOUT);
    if (knob.header()) {
      String header = URLDecodeSafe.decode(value);
      if (!header.chars().allMatch(c -> c >= 0x20 && c < 0x7f)) {
        header = value;
      }
      request.header(knob.name(), header);
    } else {
      boolean encoded = value.startsWith("%") || value.contains("%0");
      String v = encoded ? value : URLEncoder.encode(value, StandardCharsets.UTF_8);
      uri += (uri.contains("?") ? "&" : "?") + knob.name() + "=" + v;
    }
    String token =
        uri.contains("/admin/audit") && !uri.contains("session=" + t.sessionB)
            ? TwoTenants.ADMIN
            : t.tokenB;
    request.uri(t.uri(uri)).header("Authorization", "Bearer " + token);
    CompletableFuture<HttpResponse<InputStream>> pending =
        t.http.sendAsync(request.build(), HttpResponse.BodyHandlers.ofInputStream());
    HttpResponse<InputStream> head;
    try {
      head = pending.get(TwoTenants.REQUEST_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (java.util.concurrent.TimeoutException e) {
      pending.cancel(true);
      return Optional.of("no answer within " + TwoTenants.REQUEST_TIMEOUT);
    }
    try (InputStream body = head.body()) {
      if (head.statusCode() == 200
          && head.headers().firstValue("Content-Type").orElse("").startsWith("text/event-stream")) {
        return Optional.empty();
      }
      CompletableFuture<byte[]> read = CompletableFuture.supplyAsync(() -> readAll(body));
      String text =
          new String(
              read.get(TwoTenants.REQUEST_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS),
              StandardCharsets.UTF_8);
      return RequestFuzzTest.problem(new Answered(head, text), false);
    }
  }

  @Test
  void fuzzedAttachOffsetsAndFramesCloseWithACodeAndTheSessionStillServes() throws Exception {
    long seed = RequestFuzzTest.seed();
    System.out.println("attach fuzz: seed " + seed + " (re-run with -Dberth.seed=" + seed + ")");
    SplittableRandom random = new SplittableRandom(seed);
    List<String> failures = new ArrayList<>();
    for (String offset :
        List.of("-1", "abc", "99999999999999999999", "%FF", "\u00e9".repeat(80), "1e3")) {
      Attach attach =
          Attach.open(t, "?offset=" + URLEncoder.encode(offset, StandardCharsets.UTF_8));
      Attach.Closed closed = attach.closed(TwoTenants.REQUEST_TIMEOUT);
      if (closed.code() != 1008) {
        failures.add("offset " + shorten(offset) + ": closed " + closed);
      }
    }
    Attach attach = Attach.open(t, "");
    int sent = 0;
    while (sent < FRAMES && !attach.isClosed() && attach.send(frame(random))) {
      sent++;
    }
    if (sent < FRAMES) {
      failures.add(
          "the attach ended after "
              + sent
              + " fuzzed frames: "
              + attach.closed(TwoTenants.REQUEST_TIMEOUT));
    }
    // Last, an input frame over the 64 KiB limit: the attach is closed as too big.
    attach.send(ByteBuffer.allocate(70 * 1024));
    Attach.Closed closed = attach.closed(TwoTenants.REQUEST_TIMEOUT);
    if (closed.code() != 1009) {
      failures.add("an input frame of 70 KiB ended the attach " + closed + ", not 1009");
    }
    System.out.println("attach fuzz: " + sent + " frames, then " + closed);

    assertThat(failures).as("seed %s", seed).isEmpty();
    Attach again = Attach.open(t, "");
    assertThat(again.firstText(TwoTenants.REQUEST_TIMEOUT))
        .as("a new attach is served")
        .contains("\"attached\"");
    again.closeAndWait();
    assertThat(
            t.send("GET", "/api/v1/sessions/" + t.sessionB + "/runtime", t.tokenB, null)
                .statusCode())
        .as("B's session still serves")
        .isEqualTo(200);
  }

  /** A fuzzed frame: input bytes, or a control message that is wrong in some way. */
  private static Object frame(SplittableRandom random) {
    return switch (random.nextInt(8)) {
      case 0, 1 -> {
        byte[] bytes = new byte[1 + random.nextInt(512)];
        random.nextBytes(bytes);
        yield ByteBuffer.wrap(bytes);
      }
      case 2 ->
          "{\"type\":\"resize\",\"cols\":"
              + randomNumber(random)
              + ",\"rows\":"
              + randomNumber(random)
              + "}";
      case 3 -> "{\"type\":\"" + "x".repeat(random.nextInt(5)) + "\"}";
      case 4 -> "{\"type\":\"resize\"" + "[".repeat(random.nextInt(2000));
      case 5 -> "not json \u0000 \ud83d\ude00";
      case 6 ->
          "{\"type\":\"resize\",\"cols\":\"" + "9".repeat(random.nextInt(100)) + "\",\"rows\":[]}";
      default -> "{}";
    };
  }

  private static String randomNumber(SplittableRandom random) {
    String[] numbers = {
      "-1", "0", "65536", "2147483648", "1e308", "-9223372036854775809", "3.5", "80"
    };
    return numbers[random.nextInt(numbers.length)];
  }

  private static byte[] readAll(InputStream in) {
    try {
      return in.readNBytes(1 << 20);
    } catch (java.io.IOException e) {
      return ("(read failed: " + e + ")").getBytes(StandardCharsets.UTF_8);
    }
  }

  private static String shorten(String text) {
    return text.length() > 24 ? text.substring(0, 24) + "…(" + text.length() + ")" : text;
  }

  /** An answer read as text, for {@link RequestFuzzTest#problem}. */
  private record Answered(HttpResponse<InputStream> head, String body)
      implements HttpResponse<String> {
    @Override
    public int statusCode() {
      return head.statusCode();
    }

    @Override
    public HttpRequest request() {
      return head.request();
    }

    @Override
    public Optional<HttpResponse<String>> previousResponse() {
      return Optional.empty();
    }

    @Override
    public java.net.http.HttpHeaders headers() {
      return head.headers();
    }

    @Override
    public java.net.URI uri() {
      return head.uri();
    }

    @Override
    public java.net.http.HttpClient.Version version() {
      return head.version();
    }

    @Override
    public Optional<javax.net.ssl.SSLSession> sslSession() {
      return Optional.empty();
    }
  }

  /** Percent-decoding that leaves a value it cannot decode as it is. */
  private static final class URLDecodeSafe {
    static String decode(String value) {
      try {
        return java.net.URLDecoder.decode(value, StandardCharsets.UTF_8);
      } catch (IllegalArgumentException e) {
        return value;
      }
    }
  }

  /** One attach WebSocket of tenant B's session, and how it ended. */
  static final class Attach implements WebSocket.Listener {
    record Closed(int code, String reason) {}

    private final CompletableFuture<Closed> closed = new CompletableFuture<>();
    private final CompletableFuture<String> firstText = new CompletableFuture<>();
    private final StringBuilder text = new StringBuilder();
    private @Nullable WebSocket socket;

    static Attach open(TwoTenants t, String query) throws Exception {
      Attach attach = new Attach();
      try {
        attach.socket =
            t.http
                .newWebSocketBuilder()
                .header("Authorization", "Bearer " + t.tokenB)
                .buildAsync(
                    java.net.URI.create(
                        "ws://127.0.0.1:"
                            + t.port()
                            + "/api/v1/sessions/"
                            + t.sessionB
                            + "/attach"
                            + query),
                    attach)
                .get(TwoTenants.REQUEST_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
      } catch (java.util.concurrent.ExecutionException e) {
        attach.closed.complete(new Closed(-1, "upgrade refused: " + e.getCause()));
      }
      return attach;
    }

    @Override
    public CompletionStage<?> onText(WebSocket ws, CharSequence data, boolean last) {
      text.append(data);
      if (last) {
        firstText.complete(text.toString());
        text.setLength(0);
      }
      ws.request(1);
      return null;
    }

    @Override
    public CompletionStage<?> onBinary(WebSocket ws, ByteBuffer data, boolean last) {
      ws.request(1);
      return null;
    }

    @Override
    public CompletionStage<?> onClose(WebSocket ws, int code, String reason) {
      closed.complete(new Closed(code, reason));
      return null;
    }

    @Override
    public void onError(WebSocket ws, Throwable error) {
      closed.complete(new Closed(0, "error " + error));
    }

    boolean isClosed() {
      return closed.isDone();
    }

    /** Sends a frame; false when the connection no longer takes frames (it is closing). */
    boolean send(Object frame) throws Exception {
      WebSocket ws = java.util.Objects.requireNonNull(socket);
      CompletableFuture<WebSocket> sent =
          frame instanceof ByteBuffer b
              ? ws.sendBinary(b, true)
              : ws.sendText((String) frame, true);
      try {
        sent.get(TwoTenants.REQUEST_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        return true;
      } catch (java.util.concurrent.ExecutionException e) {
        return false;
      }
    }

    String firstText(java.time.Duration timeout) throws Exception {
      return firstText.get(timeout.toSeconds(), TimeUnit.SECONDS);
    }

    Closed closed(java.time.Duration timeout) throws Exception {
      try {
        return closed.get(timeout.toSeconds(), TimeUnit.SECONDS);
      } catch (java.util.concurrent.TimeoutException e) {
        return new Closed(0, "still open after " + timeout);
      } finally {
        if (socket != null) {
          socket.abort();
        }
      }
    }

    /** Closes from this side when still open; the code the server closed with, else 1000. */
    Closed closeAndWait() throws Exception {
      if (!closed.isDone() && socket != null && !socket.isOutputClosed()) {
        try {
          socket
              .sendClose(WebSocket.NORMAL_CLOSURE, "done")
              .get(TwoTenants.REQUEST_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
          // the server is closing it: its code is what counts
        }
      }
      return closed(TwoTenants.REQUEST_TIMEOUT);
    }
  }
}
