package dev.berth.server.runtime;

import dev.berth.core.agent.ByteStream;
import dev.berth.core.agent.DataPlane;
import dev.berth.core.error.AgentUnreachableException;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Opens the agent's answers that are relayed rather than read: output reads and SSE streams. A
 * problem answer (a bad cursor, a gone runtime) is turned into the domain's exceptions before any
 * byte of it could reach the client; a good one is handed over with its body unread.
 */
final class AgentStreams {

  /** Bounds the wait for a read's headers (not the copying of its body); streams wait freely. */
  private static final Duration READ_TIMEOUT = Duration.ofSeconds(30);

  private final HttpClient http =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  private final JsonMapper json = JsonMapper.builder().build();

  ByteStream read(AgentEndpoints.Endpoint agent, long offset) {
    return open(agent, "/output", "offset=" + offset, Optional.empty(), Optional.of(READ_TIMEOUT));
  }

  ByteStream stream(AgentEndpoints.Endpoint agent, String path, DataPlane.StreamFrom from) {
    return open(
        agent, path, AgentWireDataPlane.queryOf(from), from.lastEventId(), Optional.empty());
  }

  private ByteStream open(
      AgentEndpoints.Endpoint agent,
      String path,
      String query,
      Optional<String> lastEventId,
      Optional<Duration> timeout) {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(agent.url(path, query)))
            .header("Authorization", "Bearer " + agent.token());
    lastEventId.ifPresent(id -> request.header("Last-Event-ID", id));
    timeout.ifPresent(request::timeout);
    HttpResponse<InputStream> response;
    try {
      response = http.send(request.build(), HttpResponse.BodyHandlers.ofInputStream());
    } catch (IOException e) {
      throw new AgentUnreachableException(agent.runtimeName(), e.toString(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AgentUnreachableException(agent.runtimeName(), "interrupted", e);
    }
    if (response.statusCode() >= 400) {
      throw AgentWireClient.problem(
          agent.runtimeName(), response.statusCode(), problemOf(response), Optional.empty());
    }
    return new ByteStream(response.headers().firstValue("Content-Type"), response.body());
  }

  private Optional<JsonNode> problemOf(HttpResponse<InputStream> response) {
    String text;
    try (InputStream body = response.body()) {
      text = new String(body.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      return Optional.empty();
    }
    try {
      return Optional.of(json.readTree(text));
    } catch (RuntimeException e) {
      return Optional.empty();
    }
  }
}
