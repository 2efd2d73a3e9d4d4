package dev.berth.agent.http;

import dev.berth.agent.archive.ArchiveException;
import dev.berth.agent.contract.CorruptContractException;
import dev.berth.agent.contract.LeaseExpiredException;
import dev.berth.agent.host.HostRefusal;
import dev.berth.agent.shell.ShellExitedException;
import dev.berth.agent.shell.ShellInputBlockedException;
import dev.berth.core.error.BerthException;
import dev.berth.core.error.StaleIntentException;
import dev.berth.protocol.problem.AgentReason;
import dev.berth.protocol.problem.ProblemDocument;
import io.javalin.http.Context;
import io.javalin.http.HttpResponseException;
import java.util.LinkedHashMap;
import java.util.Map;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;

/**
 * The one place that turns a failure into an HTTP answer: RFC 9457 problem+json with a stable
 * {@code reason}, plus the original platform's {@code error} field carrying the same message.
 */
final class Problems {

  static final String CONTENT_TYPE = ProblemDocument.CONTENT_TYPE;

  /** A problem's HTTP status and machine reason. */
  record Kind(int status, AgentReason reason) {}

  private final JsonMapper json;

  Problems(JsonMapper json) {
    this.json = json;
  }

  void write(Context ctx, Throwable failure) {
    Kind kind = classify(failure);
    Map<String, Object> extra = new LinkedHashMap<>();
    if (failure instanceof StaleIntentException stale) {
      extra.put("acceptedIntentVersion", stale.current());
    }
    write(ctx, kind, messageOf(failure), extra);
  }

  void write(Context ctx, Kind kind, String message) {
    write(ctx, kind, message, Map.of());
  }

  private void write(Context ctx, Kind kind, String message, Map<String, Object> extra) {
    Map<String, Object> body =
        ProblemDocument.of(
            kind.status(),
            kind.reason().wireName(),
            message,
            java.util.Optional.ofNullable(ctx.pathParamMap().get("sid")));
    body.putAll(extra);
    ctx.status(kind.status()).contentType(CONTENT_TYPE).result(json.writeValueAsString(body));
  }

  static Kind classify(Throwable failure) {
    return switch (failure) {
      case HostRefusal refusal -> new Kind(refusal.status(), refusal.reason());
      // A restore's rule refused the archive (where it writes, what it holds, how it is framed).
      case ArchiveException archive -> new Kind(422, archive.reason());
      case LeaseExpiredException expired -> new Kind(409, expired.reason());
      // The shell died between the state check and the write: the same answer as after it.
      case ShellExitedException exited -> new Kind(503, AgentReason.SHELL_EXITED);
      case ShellInputBlockedException blocked -> new Kind(503, AgentReason.INPUT_BLOCKED);
      case CorruptContractException corrupt -> new Kind(500, corrupt.reason());
      // An agent session's prompt limits (the original's numbers and statuses).
      case dev.berth.agent.agentcli.Turn.PromptTooLargeException tooLarge ->
          new Kind(413, AgentReason.PROMPT_TOO_LARGE);
      case dev.berth.agent.agentcli.PromptRunner.QueueFullException full ->
          new Kind(429, AgentReason.PROMPT_QUEUE_FULL);
      case dev.berth.agent.agentcli.PromptRunner.OutputFullException full ->
          new Kind(507, AgentReason.OUTPUT_FULL);
      case dev.berth.agent.agentcli.PromptRunner.AdmissionClosedException closed ->
          new Kind(409, AgentReason.SUSPENDING);
      case HttpResponseException http ->
          new Kind(http.getStatus(), AgentReason.ofStatus(http.getStatus()));
      case BerthException domain -> DomainProblems.kindOf(domain);
      case JacksonException e -> new Kind(400, AgentReason.INVALID_INPUT);
      case IllegalArgumentException e -> new Kind(400, AgentReason.INVALID_INPUT);
      default -> new Kind(500, AgentReason.INTERNAL);
    };
  }

  private static String messageOf(Throwable failure) {
    if (failure instanceof JacksonException e) {
      return "the request body is not valid: " + e.getOriginalMessage();
    }
    String message = failure.getMessage();
    return message == null ? failure.getClass().getSimpleName() : message;
  }
}
