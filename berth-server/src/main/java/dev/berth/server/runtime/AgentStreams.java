package dev.berth.server.runtime;

import dev.berth.core.agent.ByteStream;
import dev.berth.core.agent.DataPlane;
import dev.berth.core.error.AgentUnreachableException;
import dev.berth.protocol.wire.AgentEndpoints;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import org.apache.hc.client5.http.classic.methods.HttpGet;
import org.apache.hc.core5.http.ClassicHttpResponse;
import org.apache.hc.core5.http.Header;
import org.apache.hc.core5.http.HttpEntity;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Opens the agent's answers that are relayed rather than read: output reads and SSE streams. A
 * problem answer (a bad cursor, a gone runtime) is turned into the domain's exceptions before any
 * byte of it could reach the client; a good one is handed over with its body unread.
 */
final class AgentStreams {

  /** Bounds each wait of a read for its next bytes; streams wait freely. */
  private static final Duration READ_TIMEOUT = Duration.ofSeconds(30);

  private final HttpClient http =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  private final BlockingAgentHttp reads;
  private final JsonMapper json = JsonMapper.builder().build();

  /** Streams whose output reads tell {@code timings} (the streams themselves are not timed). */
  AgentStreams(AgentCallTimings timings) {
    this.reads = new BlockingAgentHttp(READ_TIMEOUT, timings);
  }

  /**
   * A read of the output: a bounded answer, on a kept connection (see {@link BlockingAgentHttp}).
   */
  ByteStream read(AgentEndpoints.Endpoint agent, long offset) {
    HttpGet request = new HttpGet(agent.url("/output", "offset=" + offset));
    request.setHeader("Authorization", "Bearer " + agent.token());
    ClassicHttpResponse response;
    try {
      response = reads.open(request);
    } catch (IOException e) {
      throw new AgentUnreachableException(agent.runtimeName(), e.toString(), e);
    }
    HttpEntity entity = response.getEntity();
    try {
      InputStream body = entity == null ? InputStream.nullInputStream() : entity.getContent();
      if (response.getCode() >= 400) {
        try (response) {
          throw AgentWireClient.problem(
              agent.runtimeName(), response.getCode(), problemOf(body), Optional.empty());
        }
      }
      Header type = response.getFirstHeader("Content-Type");
      return new ByteStream(
          Optional.ofNullable(type).map(Header::getValue), new ClosingResponse(body, response));
    } catch (IOException e) {
      closeQuietly(response);
      throw new AgentUnreachableException(agent.runtimeName(), e.toString(), e);
    }
  }

  /**
   * The body of a read; closing it closes the response, which gives the connection back when the
   * body was read to its end and drops it otherwise (a reader that stops early never makes the
   * relay drain the rest of a large answer).
   */
  private static final class ClosingResponse extends FilterInputStream {
    private final ClassicHttpResponse response;

    ClosingResponse(InputStream body, ClassicHttpResponse response) {
      super(body);
      this.response = response;
    }

    @Override
    public void close() throws IOException {
      response.close();
    }
  }

  private static void closeQuietly(ClassicHttpResponse response) {
    try {
      response.close();
    } catch (IOException ignored) {
      // The connection is dropped either way.
    }
  }

  ByteStream stream(AgentEndpoints.Endpoint agent, String path, DataPlane.StreamFrom from) {
    return open(agent, path, AgentWireDataPlane.queryOf(from), from.lastEventId());
  }

  private ByteStream open(
      AgentEndpoints.Endpoint agent, String path, String query, Optional<String> lastEventId) {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(agent.url(path, query)))
            .header("Authorization", "Bearer " + agent.token());
    lastEventId.ifPresent(id -> request.header("Last-Event-ID", id));
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
          agent.runtimeName(), response.statusCode(), problemOf(response.body()), Optional.empty());
    }
    return new ByteStream(response.headers().firstValue("Content-Type"), response.body());
  }

  private Optional<JsonNode> problemOf(InputStream answer) {
    String text;
    try (InputStream body = answer) {
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
