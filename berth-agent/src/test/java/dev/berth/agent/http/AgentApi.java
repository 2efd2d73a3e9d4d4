package dev.berth.agent.http;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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

  record Answer(int status, String body) {
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
                    Long.toString(incarnation))));
    return send("PUT", "/v1/sessions/" + session, body, Optional.empty());
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

  byte[] bytes(String session, long offset) {
    return Base64.getDecoder().decode(read(session, offset).path("payloadBase64").asString());
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
      return new Answer(response.statusCode(), response.body());
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
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(base + "/v1/sessions/" + session + "/stream" + query))
            .header("Authorization", "Bearer " + token);
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
