package dev.berth.server.api;

import dev.berth.core.error.AgentUnreachableException;
import dev.berth.core.error.AlreadyExistsException;
import dev.berth.core.error.ApprovalRefusedException;
import dev.berth.core.error.BerthException;
import dev.berth.core.error.DeadlineExceededException;
import dev.berth.core.error.ForbiddenException;
import dev.berth.core.error.IllegalTransitionException;
import dev.berth.core.error.IntentSupersededException;
import dev.berth.core.error.InvalidValueException;
import dev.berth.core.error.IsolationUnavailableException;
import dev.berth.core.error.NotFoundException;
import dev.berth.core.error.NotRunningException;
import dev.berth.core.error.PreconditionFailedException;
import dev.berth.core.error.PromptTooLargeException;
import dev.berth.core.error.QuotaExceededException;
import dev.berth.core.error.RecoveryRefusedException;
import dev.berth.core.error.RuntimeUnavailableException;
import dev.berth.core.error.SnapshotRefusedException;
import dev.berth.core.error.SnapshotUnavailableException;
import dev.berth.core.error.StaleFenceException;
import dev.berth.core.error.StaleIntentException;
import dev.berth.core.error.SuspendingException;
import dev.berth.core.error.TerminalIntentException;
import dev.berth.core.error.VersionConflictException;
import dev.berth.core.error.WaitExpiredException;
import dev.berth.core.error.WorkloadNotAllowedException;
import dev.berth.core.error.WorkloadUnavailableException;
import dev.berth.protocol.problem.AgentCommandFailedException;
import dev.berth.protocol.problem.ProblemDocument;
import dev.berth.server.auth.IdentityUnavailableException;
import dev.berth.server.auth.UnauthenticatedException;
import io.javalin.http.Context;
import io.javalin.http.HttpResponseException;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;

/**
 * The one place that turns a failure into a public-API answer: problem+json with the stable {@code
 * reason} of docs/api.md and the original platform's {@code error} field. Unexpected failures are
 * logged with the request and answered 500 without internals.
 */
final class ApiProblems {

  static final String CONTENT_TYPE = ProblemDocument.CONTENT_TYPE;
  private static final Logger LOG = LoggerFactory.getLogger(ApiProblems.class);

  /** A problem's status and reason. */
  record Kind(int status, String reason) {}

  private final JsonMapper json;

  ApiProblems(JsonMapper json) {
    this.json = json;
  }

  void write(Context ctx, Exception failure) {
    Kind kind = classify(failure);
    String message = message(failure, kind);
    if (kind.status() >= 500 && kind.reason().equals("INTERNAL")) {
      LOG.error("{} {} failed", ctx.method(), ctx.path(), failure);
    }
    write(ctx, kind, message);
  }

  void write(Context ctx, Kind kind, String message) {
    Map<String, Object> body =
        ProblemDocument.of(
            kind.status(),
            kind.reason(),
            message,
            java.util.Optional.ofNullable(ctx.pathParamMap().get("id")));
    ctx.status(kind.status()).contentType(CONTENT_TYPE).result(json.writeValueAsString(body));
  }

  static Kind classify(Exception failure) {
    return switch (failure) {
      // The agent refusing the control plane's own token is the platform's fault, not the caller's.
      case AgentCommandFailedException agent when agent.status() == 401 ->
          new Kind(502, "AGENT_UNREACHABLE");
      case AgentCommandFailedException agent -> new Kind(agent.status(), agent.reason());
      // A data plane's refusal without an HTTP status of its own: the state of the runtime.
      case dev.berth.core.agent.AgentRefusedException refused -> new Kind(409, refused.reason());
      case UnauthenticatedException e -> new Kind(401, e.reason());
      case IdentityUnavailableException e -> new Kind(503, e.reason());
      case PayloadTooLargeException e -> new Kind(413, "PAYLOAD_TOO_LARGE");
      case UnreadableBodyException e -> new Kind(e.status(), e.reason());
      case BerthException domain -> domain(domain);
      case JacksonException e -> new Kind(400, "INVALID_INPUT");
      case HttpResponseException e ->
          new Kind(e.getStatus(), ProblemDocument.reasonOf(e.getStatus()));
      default -> new Kind(500, "INTERNAL");
    };
  }

  private static Kind domain(BerthException domain) {
    return switch (domain) {
      case InvalidValueException e -> new Kind(400, "INVALID_INPUT");
      case NotFoundException e -> new Kind(404, "NOT_FOUND");
      case StaleIntentException e -> new Kind(409, e.reason());
      case TerminalIntentException e -> new Kind(409, e.reason());
      case VersionConflictException e -> new Kind(409, "CONFLICT");
      case StaleFenceException e -> new Kind(409, "CONFLICT");
      case AlreadyExistsException e -> new Kind(409, "CONFLICT");
      case IllegalTransitionException e -> new Kind(409, "CONFLICT");
      case AgentUnreachableException e -> new Kind(502, "AGENT_UNREACHABLE");
      case DeadlineExceededException e -> new Kind(504, "DEADLINE_EXCEEDED");
      case ForbiddenException e -> new Kind(403, e.reason());
      case WorkloadNotAllowedException e -> new Kind(403, e.reason());
      case QuotaExceededException e -> new Kind(429, e.reason());
      case PreconditionFailedException e -> new Kind(412, e.reason());
      case SuspendingException e -> new Kind(409, e.reason());
      case SnapshotUnavailableException e -> new Kind(503, e.reason());
      case SnapshotRefusedException e -> new Kind(422, e.reason());
      // Given up for another's newer request: the same 409 CONFLICT as a lost write race.
      case IntentSupersededException e -> new Kind(409, e.reason());
      case WaitExpiredException e -> new Kind(504, e.reason());
      case NotRunningException e -> new Kind(422, e.reason());
      case RuntimeUnavailableException e -> new Kind(503, e.reason());
      case IsolationUnavailableException e -> new Kind(503, e.reason());
      case WorkloadUnavailableException e -> new Kind(503, e.reason());
      case PromptTooLargeException e -> new Kind(413, e.reason());
      case RecoveryRefusedException e -> new Kind(recoveryStatus(e.why()), e.reason());
      case ApprovalRefusedException e ->
          new Kind(
              e.why() == ApprovalRefusedException.Why.APPROVAL_NOT_FOUND ? 404 : 409, e.reason());
    };
  }

  private static int recoveryStatus(RecoveryRefusedException.Why why) {
    return switch (why) {
      case INVALID_STATE, ALREADY_RECOVERED -> 409;
      case NOT_RECOVERABLE, RECOVERY_WINDOW_ENDED -> 410;
    };
  }

  /** The original's base messages where it had them; the domain's own message otherwise. */
  private static String message(Exception failure, Kind kind) {
    return switch (kind.reason()) {
      case "NOT_FOUND" -> Objects.requireNonNullElse(failure.getMessage(), kind.reason());
      // A record that already exists (a service account another tenant lists) is not a race.
      case "CONFLICT" ->
          failure instanceof AlreadyExistsException exists
              ? exists.getMessage()
              : "session state changed concurrently: " + failure.getMessage();
      case "PAYLOAD_TOO_LARGE" -> "request body exceeds size limit";
      case "INTERNAL" -> "internal error; the server log has the details";
      default -> {
        if (failure instanceof JacksonException e) {
          yield "invalid input: " + e.getOriginalMessage();
        }
        String text = failure.getMessage();
        yield text == null ? kind.reason() : text;
      }
    };
  }
}
