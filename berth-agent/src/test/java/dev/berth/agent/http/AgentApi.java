package dev.berth.agent.http;

import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** A small test client of the agent protocol over real HTTP. */
final class AgentApi {

  static final JsonMapper JSON = JsonMapper.builder().build();

  private final HttpClient http = HttpClient.newHttpClient();
  private final String base;
  private final String token;

  AgentApi(int port, String token) {
    this.base = "http://127.0.0.1:" + port;
    this.token = token;
  }

  String baseUrl() {
    return base;
  }

  String token() {
    return token;
  }

  record Answer(int status, String body, HttpHeaders headers) {
    JsonNode json() {
      return JSON.readTree(body);
    }
  }

  /** The local-contract headers a lifecycle command carries. */
  record Command(long intentVersion, Instant deadline, String operation) {
    static Command of(long version, String operation) {
      return new Command(version, Instant.now().plusSeconds(60), operation);
    }
  }

  Answer provision(String session, long incarnation) {
    return provision(session, incarnation, false);
  }

  /** {@code PUT} of incarnation {@code incarnation}; with {@code awaitRestore}, for a resume. */
  Answer provision(String session, long incarnation, boolean awaitRestore) {
    String body =
        JSON.writeValueAsString(
            Map.of(
                "runtime",
                "berth-" + session + "-" + incarnation,
                "incarnation",
                incarnation,
                "workload",
                "shell",
                "labels",
                Map.of(
                    "berth.dev/installation",
                    "test",
                    "berth.dev/session",
                    session,
                    "berth.dev/incarnation",
                    Long.toString(incarnation)),
                "awaitRestore",
                awaitRestore));
    return send("PUT", "/v1/sessions/" + session, body, Optional.empty());
  }

  /** An answer whose body is bytes (an archive), read whole. */
  record Bytes(int status, byte[] body) {
    String text() {
      return new String(body, StandardCharsets.UTF_8);
    }
  }

  /** {@code POST checkpoint/prepare}: pauses the runtime and answers its archive. */
  Bytes checkpoint(String session, long generation, Command command) {
    HttpRequest request =
        withCommand(
                HttpRequest.newBuilder(
                    URI.create(
                        base
                            + "/v1/sessions/"
                            + session
                            + "/checkpoint/prepare?generation="
                            + generation)),
                command)
            .POST(HttpRequest.BodyPublishers.noBody())
            .build();
    try {
      HttpResponse<byte[]> response = http.send(request, HttpResponse.BodyHandlers.ofByteArray());
      return new Bytes(response.statusCode(), response.body());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** {@code POST restore} of {@code archive} into runtime {@code runtime}, as the control plane. */
  Answer restore(String session, String runtime, long generation, byte[] archive, Command command) {
    return exchange(
        withCommand(
                HttpRequest.newBuilder(
                    URI.create(
                        base
                            + "/v1/sessions/"
                            + session
                            + "/restore?generation="
                            + generation
                            + "&runtime="
                            + runtime)),
                command)
            .timeout(Duration.ofSeconds(60))
            .header("Content-Type", "application/zstd")
            .POST(HttpRequest.BodyPublishers.ofByteArray(archive))
            .build());
  }

  private HttpRequest.Builder withCommand(HttpRequest.Builder request, Command command) {
    return request
        .header("Authorization", "Bearer " + token)
        .header("X-Berth-Intent-Version", Long.toString(command.intentVersion()))
        .header("X-Berth-Deadline", command.deadline().toString())
        .header("X-Berth-Operation", command.operation());
  }

  Answer input(String session, String text) {
    return send("POST", "/v1/sessions/" + session + "/input", text, Optional.empty());
  }

  Answer input(String session, String text, Command command) {
    return send("POST", "/v1/sessions/" + session + "/input", text, Optional.of(command));
  }

  JsonNode read(String session, long offset) {
    Answer answer = send("GET", "/v1/sessions/" + session + "/output?offset=" + offset, null);
    if (answer.status() != 200) {
      throw new AssertionError("read answered " + answer);
    }
    return answer.json();
  }

  /** All output text from {@code offset} to the current end. */
  String text(String session, long offset) {
    return new String(bytes(session, offset), StandardCharsets.UTF_8);
  }

  /** The output from {@code offset} to the current end, in as many reads as it takes. */
  byte[] bytes(String session, long offset) {
    ByteArrayOutputStream all = new ByteArrayOutputStream();
    long at = offset;
    while (true) {
      JsonNode read = read(session, at);
      byte[] chunk = Base64.getDecoder().decode(read.path("payloadBase64").asString());
      if (chunk.length == 0) {
        return all.toByteArray();
      }
      all.writeBytes(chunk);
      at = read.path("nextOffset").asLong();
    }
  }

  /** Exactly the bytes {@code [from, to)} of the output, read in as many reads as it takes. */
  byte[] bytes(String session, long from, long to) {
    ByteArrayOutputStream all = new ByteArrayOutputStream();
    long at = from;
    while (at < to) {
      long limit = Math.min(to - at, OutputResponses.MAX_READ_BYTES);
      Answer answer =
          send("GET", "/v1/sessions/" + session + "/output?offset=" + at + "&limit=" + limit, null);
      JsonNode read = answer.json();
      if (answer.status() != 200 || read.path("offset").asLong() != at) {
        throw new AssertionError("read at " + at + " answered " + answer);
      }
      byte[] chunk = Base64.getDecoder().decode(read.path("payloadBase64").asString());
      if (chunk.length == 0) {
        throw new AssertionError("the output ends at " + at + ", before " + to);
      }
      all.writeBytes(chunk);
      at += chunk.length;
    }
    return all.toByteArray();
  }

  /** The length of the session's output, as its status reports it. */
  long end(String session) {
    return status(session).path("output").path("nextOffset").asLong();
  }

  JsonNode status(String session) {
    return send("GET", "/v1/sessions/" + session + "/status", null).json();
  }

  Answer terminate(String session, Command command) {
    return send("POST", "/v1/sessions/" + session + "/terminate", "", Optional.of(command));
  }

  Answer lease(String session, long ttlSeconds, Command command) {
    return send(
        "POST",
        "/v1/sessions/" + session + "/lease",
        "{\"ttlSeconds\":" + ttlSeconds + "}",
        Optional.of(command));
  }

  /** {@code POST executions} with {@code body} as it is (tests send malformed ones too). */
  Answer startExecution(String session, String body) {
    return send("POST", "/v1/sessions/" + session + "/executions", body);
  }

  /** Starts {@code command} and returns the id of the execution the host created. */
  String execute(String session, String command, long timeoutSeconds) {
    Answer answer =
        startExecution(
            session,
            JSON.writeValueAsString(Map.of("command", command, "timeoutSeconds", timeoutSeconds)));
    if (answer.status() != 201) {
      throw new AssertionError("POST executions answered " + answer);
    }
    return answer.json().path("id").asString();
  }

  Answer execution(String session, String execution) {
    return send("GET", "/v1/sessions/" + session + "/executions/" + execution, null);
  }

  Answer cancel(String session, String execution) {
    return send("POST", "/v1/sessions/" + session + "/executions/" + execution + "/cancel", "");
  }

  /** All output of an execution from {@code offset}, in as many reads as it takes. */
  byte[] executionBytes(String session, String execution, long offset) {
    ByteArrayOutputStream all = new ByteArrayOutputStream();
    long at = offset;
    while (true) {
      JsonNode read = executionRead(session, execution, at, OutputResponses.MAX_READ_BYTES);
      byte[] chunk = Base64.getDecoder().decode(read.path("payloadBase64").asString());
      if (chunk.length == 0) {
        return all.toByteArray();
      }
      all.writeBytes(chunk);
      at = read.path("nextOffset").asLong();
    }
  }

  /** One {@code GET executions/{eid}/output} with a {@code limit}. */
  JsonNode executionRead(String session, String execution, long offset, long limit) {
    Answer answer =
        send(
            "GET",
            "/v1/sessions/"
                + session
                + "/executions/"
                + execution
                + "/output?offset="
                + offset
                + "&limit="
                + limit,
            null);
    if (answer.status() != 200) {
      throw new AssertionError("execution output answered " + answer);
    }
    return answer.json();
  }

  String executionText(String session, String execution) {
    return new String(executionBytes(session, execution, 0), StandardCharsets.UTF_8);
  }

  /**
   * Opens {@code GET attach} with the host's token; the client reads every frame, or only the first
   * one when {@code stalled}.
   */
  AttachClient attach(String session, String query, boolean stalled) {
    return attach(session, query, Optional.of("Bearer " + token), stalled);
  }

  /** Opens {@code GET attach} with {@code authorization} as the header, or none. */
  AttachClient attach(
      String session, String query, Optional<String> authorization, boolean stalled) {
    AttachClient client = new AttachClient(stalled);
    WebSocket.Builder builder = http.newWebSocketBuilder().connectTimeout(Duration.ofSeconds(10));
    authorization.ifPresent(value -> builder.header("Authorization", value));
    URI uri =
        URI.create(base.replace("http:", "ws:") + "/v1/sessions/" + session + "/attach" + query);
    try {
      builder.buildAsync(uri, client).get(10, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      client.failedToOpen(e.getCause());
    } catch (TimeoutException e) {
      throw new AssertionError("the WebSocket handshake with " + uri + " did not finish", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
    return client;
  }

  Answer send(String method, String path, String body) {
    return send(method, path, body, Optional.empty());
  }

  Answer send(String method, String path, String body, Optional<Command> command) {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(base + path))
            .timeout(Duration.ofSeconds(30))
            .header("Authorization", "Bearer " + token)
            .method(
                method,
                body == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(body));
    command.ifPresent(
        c ->
            request
                .header("X-Berth-Intent-Version", Long.toString(c.intentVersion()))
                .header("X-Berth-Deadline", c.deadline().toString())
                .header("X-Berth-Operation", c.operation()));
    return exchange(request.build());
  }

  Answer unauthenticated(String path) {
    return exchange(HttpRequest.newBuilder(URI.create(base + path)).build());
  }

  private Answer exchange(HttpRequest request) {
    try {
      HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
      return new Answer(response.statusCode(), response.body(), response.headers());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** One SSE event as a spec-conformant client sees it. */
  record Event(String id, String type, String data) {
    JsonNode json() {
      return JSON.readTree(data);
    }

    byte[] payload() {
      return Base64.getDecoder().decode(json().path("payloadBase64").asString());
    }
  }

  /** An open SSE stream; events are parsed as they arrive. Close it to disconnect. */
  static final class Stream implements AutoCloseable {
    final int status;
    final Map<String, List<String>> headers;
    private final InputStream body;
    private final BufferedReader reader;
    final List<String> comments = new ArrayList<>();

    Stream(HttpResponse<InputStream> response) {
      this.status = response.statusCode();
      this.headers = response.headers().map();
      this.body = response.body();
      this.reader = new BufferedReader(new InputStreamReader(body, StandardCharsets.UTF_8));
    }

    /** The next event (comments are collected on the side); empty at the end of the stream. */
    Optional<Event> next() throws IOException {
      String id = null;
      String type = "message";
      StringBuilder data = null;
      String line;
      while ((line = reader.readLine()) != null) {
        if (line.isEmpty()) {
          if (data != null) {
            return Optional.of(new Event(id, type, data.toString()));
          }
          continue;
        }
        if (line.startsWith(":")) {
          comments.add(line.substring(1).strip());
          continue;
        }
        int colon = line.indexOf(':');
        String field = colon < 0 ? line : line.substring(0, colon);
        String value = colon < 0 ? "" : line.substring(colon + 1).replaceFirst("^ ", "");
        switch (field) {
          case "id" -> id = value;
          case "event" -> type = value;
          case "data" ->
              data = data == null ? new StringBuilder(value) : data.append('\n').append(value);
          default -> {}
        }
      }
      return Optional.empty();
    }

    @Override
    public void close() throws IOException {
      body.close();
    }
  }

  Stream stream(String session, String query, Optional<String> lastEventId) {
    return openStream("/v1/sessions/" + session + "/stream" + query, lastEventId);
  }

  /** The SSE stream of one execution's own output. */
  Stream executionStream(String session, String execution, String query) {
    return openStream(
        "/v1/sessions/" + session + "/executions/" + execution + "/stream" + query,
        Optional.empty());
  }

  private Stream openStream(String path, Optional<String> lastEventId) {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(base + path)).header("Authorization", "Bearer " + token);
    lastEventId.ifPresent(id -> request.header("Last-Event-ID", id));
    try {
      return new Stream(http.send(request.build(), HttpResponse.BodyHandlers.ofInputStream()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
