package dev.berth.cli.e2e;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** Raw HTTP against the public API, so a test can send exactly the bytes the contract is about. */
final class Api {

  static final JsonMapper JSON = JsonMapper.builder().build();

  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final String base;
  private final String token;

  Api(String base, String token) {
    this.base = base;
    this.token = token;
  }

  Api as(String otherToken) {
    return new Api(base, otherToken);
  }

  record Answer(int status, String body) {
    JsonNode json() {
      return JSON.readTree(body);
    }

    String reason() {
      return json().path("reason").asString();
    }
  }

  Answer get(String path) {
    return send("GET", path, null);
  }

  /**
   * A deleted session as {@code GET /sessions?deleted=true} lists it (its own routes answer 404
   * once its deletion was accepted), or a missing node when it is not listed.
   */
  JsonNode deleted(String id) {
    for (JsonNode s : get("/sessions?deleted=true").json().path("sessions")) {
      if (s.path("id").asString().equals(id)) {
        return s;
      }
    }
    return tools.jackson.databind.node.MissingNode.getInstance();
  }

  /**
   * How a WebSocket attach to session {@code id} with this token ends before any output: {@code
   * "refused"} (the handshake), {@code "closed <code>"}, or {@code "output"} when output came.
   */
  String attachOutcome(String id) throws Exception {
    java.util.concurrent.CompletableFuture<String> ended =
        new java.util.concurrent.CompletableFuture<>();
    try {
      HttpClient.newHttpClient()
          .newWebSocketBuilder()
          .header("Authorization", "Bearer " + token)
          .buildAsync(
              java.net.URI.create(
                  base.replace("http", "ws") + "/api/v1/sessions/" + id + "/attach"),
              new java.net.http.WebSocket.Listener() {
                @Override
                public java.util.concurrent.CompletionStage<?> onClose(
                    java.net.http.WebSocket ws, int status, String reason) {
                  ended.complete("closed " + status);
                  return null;
                }

                @Override
                public java.util.concurrent.CompletionStage<?> onBinary(
                    java.net.http.WebSocket ws, java.nio.ByteBuffer data, boolean last) {
                  ended.complete("output");
                  return null;
                }
              })
          .join();
    } catch (java.util.concurrent.CompletionException e) {
      return "refused";
    }
    return ended.get(20, java.util.concurrent.TimeUnit.SECONDS);
  }

  Answer post(String path, String body) {
    return send("POST", path, body);
  }

  Answer delete(String path) {
    return send("DELETE", path, null);
  }

  Answer sendWithIfMatch(String method, String path, long version) {
    return send(method, path, null, "\"" + version + "\"");
  }

  Answer send(String method, String path, String body) {
    return send(method, path, body, null);
  }

  private Answer send(String method, String path, String body, String ifMatch) {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(base + "/api/v1" + path))
            .timeout(Duration.ofMinutes(3))
            .header("Authorization", "Bearer " + token)
            .method(
                method,
                body == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(body));
    if (ifMatch != null) {
      request.header("If-Match", ifMatch);
    }
    try {
      HttpResponse<String> response =
          http.send(request.build(), HttpResponse.BodyHandlers.ofString());
      return new Answer(response.statusCode(), response.body());
    } catch (IOException e) {
      throw new UncheckedIOException(method + " " + path, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /**
   * Opens a stream ({@code GET path}, server-sent events) and hands its lines, as they arrive, to
   * {@code lines}; the future completes with the status when the stream ends.
   */
  java.util.concurrent.CompletableFuture<Integer> follow(
      String path, java.util.function.Consumer<String> lines) {
    HttpRequest request =
        HttpRequest.newBuilder(URI.create(base + "/api/v1" + path))
            .header("Authorization", "Bearer " + token)
            .GET()
            .build();
    return http.sendAsync(request, HttpResponse.BodyHandlers.ofLines())
        .thenApply(
            response -> {
              response.body().forEach(lines);
              return response.statusCode();
            });
  }

  /** Writes {@code input} to session {@code id}'s terminal; fails the test unless it is taken. */
  void write(String id, String input) {
    Answer answer =
        post("/sessions/" + id + "/write", "{\"payload\":" + JSON.writeValueAsString(input) + "}");
    if (answer.status() != 200) {
      throw new AssertionError("write answered " + answer);
    }
  }

  /** Creates a shell session and returns its id; fails the test unless it is active. */
  String create(String name) {
    Answer answer = post("/sessions", "{\"name\":\"" + name + "\"}");
    if (answer.status() != 201) {
      throw new AssertionError("create answered " + answer);
    }
    return answer.json().path("id").asString();
  }

  /**
   * The session's output from {@code offset} to its end, decoded as text: read after read, since
   * one read answers at most 1 MiB.
   */
  String text(String id, long offset) {
    java.io.ByteArrayOutputStream all = new java.io.ByteArrayOutputStream();
    long at = offset;
    while (true) {
      Answer answer = post("/sessions/" + id + "/read", "{\"offset\":" + at + "}");
      if (answer.status() != 200) {
        throw new AssertionError("read answered " + answer);
      }
      byte[] bytes =
          java.util.Base64.getDecoder().decode(answer.json().path("payloadBase64").asString());
      if (bytes.length == 0) {
        return all.toString(java.nio.charset.StandardCharsets.UTF_8);
      }
      all.writeBytes(bytes);
      at = answer.json().path("nextOffset").asLong();
    }
  }
}
