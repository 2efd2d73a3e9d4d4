package dev.berth.server.runtime;

import dev.berth.core.error.AgentUnreachableException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The data-plane calls the public API makes on a session's agent: output reads, input, executions,
 * and the passive output stream, proxied byte for byte (the control plane never re-frames the SSE
 * contract: a 32 KiB buffer and one flush per read, as the original did). Output reads are passed
 * through the same way, so that the control plane never holds a read's answer either.
 */
public final class AgentData {

  private static final int PROXY_BUFFER = 32 << 10;
  private static final java.time.Duration READ_TIMEOUT = java.time.Duration.ofSeconds(30);

  private final AgentWireClient wire = new AgentWireClient();
  private final HttpClient streams = HttpClient.newBuilder().build();
  private final JsonMapper json = JsonMapper.builder().build();

  /**
   * Opens a read of the session's output from {@code offset}: the agent's {@code OutputRead}
   * answer, at most its cap of payload (1 MiB), to be copied through to the client as it arrives
   * rather than parsed and built again. A problem answer is turned into the domain's exceptions
   * before anything reaches the client. The caller closes the answer.
   */
  public OpenStream openRead(AgentEndpoints.Endpoint agent, long offset) {
    return open(agent, "/output", "offset=" + offset, Optional.empty(), Optional.of(READ_TIMEOUT));
  }

  /** The agent's status report of the runtime (busy, executions, health, lease). */
  public JsonNode status(AgentEndpoints.Endpoint agent) {
    return wire.call(
            agent.runtimeName(),
            "GET",
            agent.url("/status", ""),
            agent.token(),
            Optional.empty(),
            Optional.empty())
        .json();
  }

  public void input(AgentEndpoints.Endpoint agent, byte[] bytes) {
    wire.call(
        agent.runtimeName(),
        "POST",
        agent.url("/input", ""),
        agent.token(),
        Optional.of(bytes),
        "application/octet-stream",
        Optional.empty());
  }

  /** A JSON call passed through: executions and their state. */
  public AgentWireClient.Answer call(
      AgentEndpoints.Endpoint agent, String method, String path, Optional<Object> body) {
    return wire.call(
        agent.runtimeName(),
        method,
        agent.url(path, ""),
        agent.token(),
        body.map(json::writeValueAsString),
        Optional.empty());
  }

  /** An opened agent stream: its status, and the body to copy while the client listens. */
  public record OpenStream(int status, Optional<String> contentType, InputStream body)
      implements AutoCloseable {
    @Override
    public void close() throws IOException {
      body.close();
    }
  }

  /**
   * Opens an SSE stream of the agent ({@code path} is {@code /stream} or an execution's); a problem
   * answer (bad cursor, gone runtime) is turned into the domain's exceptions before any byte of it
   * reaches the client.
   */
  public OpenStream openStream(
      AgentEndpoints.Endpoint agent, String path, String query, Optional<String> lastEventId) {
    return open(agent, path, query, lastEventId, Optional.empty());
  }

  /** {@code timeout} bounds the wait for the answer's headers, not the copying of its body. */
  private OpenStream open(
      AgentEndpoints.Endpoint agent,
      String path,
      String query,
      Optional<String> lastEventId,
      Optional<java.time.Duration> timeout) {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(agent.url(path, query)))
            .header("Authorization", "Bearer " + agent.token());
    lastEventId.ifPresent(id -> request.header("Last-Event-ID", id));
    timeout.ifPresent(request::timeout);
    HttpResponse<InputStream> response;
    try {
      response = streams.send(request.build(), HttpResponse.BodyHandlers.ofInputStream());
    } catch (IOException e) {
      throw new AgentUnreachableException(agent.runtimeName(), e.toString(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AgentUnreachableException(agent.runtimeName(), "interrupted", e);
    }
    if (response.statusCode() >= 400) {
      String text;
      try (InputStream body = response.body()) {
        text = new String(body.readAllBytes(), StandardCharsets.UTF_8);
      } catch (IOException e) {
        text = "";
      }
      Optional<JsonNode> problem;
      try {
        problem = Optional.of(json.readTree(text));
      } catch (RuntimeException e) {
        problem = Optional.empty();
      }
      throw AgentWireClient.problem(
          agent.runtimeName(), response.statusCode(), problem, Optional.empty());
    }
    return new OpenStream(
        response.statusCode(), response.headers().firstValue("Content-Type"), response.body());
  }

  /** Copies an open stream to the client, flushing after every read, until either side ends. */
  public static void copy(InputStream from, OutputStream to) throws IOException {
    byte[] buffer = new byte[PROXY_BUFFER];
    int n;
    while ((n = from.read(buffer)) >= 0) {
      to.write(buffer, 0, n);
      to.flush();
    }
  }
}
