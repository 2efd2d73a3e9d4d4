package dev.berth.server.runtime;

import dev.berth.core.agent.CommandContext;
import dev.berth.core.error.AgentUnreachableException;
import dev.berth.core.error.DeadlineExceededException;
import dev.berth.core.error.NotFoundException;
import dev.berth.core.error.StaleIntentException;
import dev.berth.core.error.TerminalIntentException;
import dev.berth.protocol.contract.CommandHeaders;
import dev.berth.protocol.problem.AgentCommandFailedException;
import dev.berth.protocol.problem.AgentReason;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import org.apache.hc.client5.http.classic.methods.HttpUriRequestBase;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.http.io.entity.ByteArrayEntity;
import org.apache.hc.core5.http.io.entity.EntityUtils;
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

  private final BlockingAgentHttp http;
  private final StoreEpochStamp epoch;
  private final JsonMapper json = JsonMapper.builder().build();

  /** A client whose calls are not timed. */
  public AgentWireClient() {
    this(AgentCallTimings.NONE);
  }

  /** A client telling {@code timings} of every call. */
  public AgentWireClient(AgentCallTimings timings) {
    this(timings, StoreEpochStamp.none());
  }

  /** A client telling {@code timings} of every call, each stamped with {@code epoch}. */
  public AgentWireClient(AgentCallTimings timings, StoreEpochStamp epoch) {
    this.http = new BlockingAgentHttp(TIMEOUT, timings);
    this.epoch = epoch;
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
    HttpUriRequestBase request = new HttpUriRequestBase(method, java.net.URI.create(url));
    request.setHeader("Authorization", "Bearer " + token);
    body.ifPresent(b -> request.setEntity(new ByteArrayEntity(b, ContentType.parse(contentType))));
    context.ifPresent(c -> CommandHeaders.of(c).forEach(request::setHeader));
    epoch.stamp(request::setHeader);
    Reply response = send(subject, request);
    Optional<JsonNode> answer = parse(response.body());
    if (response.status() < 400) {
      return new Answer(response.status(), answer);
    }
    throw problem(subject, response.status(), answer, context);
  }

  private record Reply(int status, String body) {}

  private Reply send(String subject, HttpUriRequestBase request) {
    try {
      return http.execute(
          request,
          response ->
              new Reply(
                  response.getCode(),
                  response.getEntity() == null
                      ? ""
                      : EntityUtils.toString(response.getEntity(), StandardCharsets.UTF_8)));
    } catch (IOException e) {
      throw new AgentUnreachableException(subject, e.toString(), e);
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

  /**
   * The domain exception for an agent's problem answer. A reason this build does not know (a newer
   * agent's) is an {@link AgentCommandFailedException} like any refusal the domain has no rule for,
   * with the reason as the agent spelled it.
   */
  public static RuntimeException problem(
      String subject, int status, Optional<JsonNode> body, Optional<CommandContext> context) {
    String wireReason = body.map(b -> b.path("reason").asString("")).orElse("");
    String detail = body.map(b -> b.path("detail").asString("")).orElse("HTTP " + status);
    AgentReason reason = AgentReason.parse(wireReason);
    return switch (reason) {
      case STALE_INTENT ->
          new StaleIntentException(
              subject,
              context.map(CommandContext::intentVersion).orElse(-1L),
              body.map(b -> b.path("acceptedIntentVersion").asLong(-1)).orElse(-1L));
      case SESSION_TERMINATING -> new TerminalIntentException(subject, "anything but TERMINATED");
      case DEADLINE_EXCEEDED ->
          new DeadlineExceededException(
              subject, context.map(c -> c.deadline().toString()).orElse("?"), "the agent's clock");
      case NOT_FOUND -> new NotFoundException(subject);
      default ->
          new AgentCommandFailedException(
              subject, status, reason, wireReason, AgentRefusals.of(reason), detail);
    };
  }
}
