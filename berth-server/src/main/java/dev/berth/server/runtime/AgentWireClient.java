package dev.berth.server.runtime;

import dev.berth.core.agent.CommandContext;
import dev.berth.core.error.AgentUnreachableException;
import dev.berth.core.error.DeadlineExceededException;
import dev.berth.core.error.NotFoundException;
import dev.berth.core.error.StaleIntentException;
import dev.berth.core.error.TerminalIntentException;
import dev.berth.protocol.contract.CommandHeaders;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The control plane's side of the agent protocol (docs/agent-protocol.md), shared by the runtime
 * adapters: builds authenticated requests with the local-contract headers, and turns the agent's
 * problem answers back into the domain's exceptions so the reconciler sees one vocabulary.
 */
public final class AgentWireClient {

  /** Short commands; streams and archives use their own clients without an overall timeout. */
  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  private final HttpClient http;
  private final JsonMapper json = JsonMapper.builder().build();

  public AgentWireClient() {
    // The agent speaks HTTP/1.1: asking for an h2c upgrade on every new connection only costs.
    this.http =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();
  }

  /** An answer: its status and its JSON body (empty for 204). */
  public record Answer(int status, Optional<JsonNode> body) {
    public JsonNode json() {
      return body.orElseThrow(() -> new IllegalStateException("answer " + status + " has no body"));
    }
  }

  /**
   * Sends a request and returns any answer below 400; maps problems to domain exceptions.
   *
   * @param subject names what is addressed in error messages, e.g. the runtime's name
   * @param context the local-contract headers, when the command carries them
   */
  public Answer call(
      String subject,
      String method,
      String url,
      String token,
      Optional<String> jsonBody,
      Optional<CommandContext> context) {
    return call(
        subject,
        method,
        url,
        token,
        jsonBody.map(b -> b.getBytes(StandardCharsets.UTF_8)),
        "application/json",
        context);
  }

  /** As {@link #call(String, String, String, String, Optional, Optional)} with a raw body. */
  public Answer call(
      String subject,
      String method,
      String url,
      String token,
      Optional<byte[]> body,
      String contentType,
      Optional<CommandContext> context) {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(url))
            .timeout(TIMEOUT)
            .header("Authorization", "Bearer " + token)
            .method(
                method,
                body.map(HttpRequest.BodyPublishers::ofByteArray)
                    .orElse(HttpRequest.BodyPublishers.noBody()));
    body.ifPresent(b -> request.header("Content-Type", contentType));
    context.ifPresent(c -> CommandHeaders.of(c).forEach(request::header));
    HttpResponse<String> response = send(subject, request.build());
    Optional<JsonNode> answer = parse(response.body());
    if (response.statusCode() < 400) {
      return new Answer(response.statusCode(), answer);
    }
    throw problem(subject, response.statusCode(), answer, context);
  }

  private HttpResponse<String> send(String subject, HttpRequest request) {
    try {
      return http.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new AgentUnreachableException(subject, e.toString(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AgentUnreachableException(subject, "interrupted", e);
    }
  }

  private Optional<JsonNode> parse(String body) {
    if (body == null || body.isBlank()) {
      return Optional.empty();
    }
    try {
      return Optional.of(json.readTree(body));
    } catch (JacksonException e) {
      return Optional.empty();
    }
  }

  /** The domain exception for an agent's problem answer. */
  public static RuntimeException problem(
      String subject, int status, Optional<JsonNode> body, Optional<CommandContext> context) {
    String reason = body.map(b -> b.path("reason").asString("")).orElse("");
    String detail = body.map(b -> b.path("detail").asString("")).orElse("HTTP " + status);
    return switch (reason) {
      case "STALE_INTENT" ->
          new StaleIntentException(
              subject,
              context.map(CommandContext::intentVersion).orElse(-1L),
              body.map(b -> b.path("acceptedIntentVersion").asLong(-1)).orElse(-1L));
      case "SESSION_TERMINATING" -> new TerminalIntentException(subject, "anything but TERMINATED");
      case "DEADLINE_EXCEEDED" ->
          new DeadlineExceededException(
              subject, context.map(c -> c.deadline().toString()).orElse("?"), "the agent's clock");
      case "NOT_FOUND" -> new NotFoundException(subject);
      default -> new AgentCommandFailedException(subject, status, reason, detail);
    };
  }
}
