package dev.berth.protocol.problem;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The problem+json document (RFC 9457) both planes answer with: {@code type}, {@code title}, {@code
 * status}, a stable machine {@code reason}, the {@code detail} and the original platform's {@code
 * error} (the same message), and the session it concerns. Written once here so that a client of the
 * public API and the control plane reading the agent see one shape.
 */
public final class ProblemDocument {

  public static final String CONTENT_TYPE = "application/problem+json";

  private ProblemDocument() {}

  /** The document's members, in the order they are written. */
  public static Map<String, Object> of(
      int status, String reason, String message, Optional<String> session) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("type", "about:blank");
    body.put("title", title(status));
    body.put("status", status);
    body.put("reason", reason);
    body.put("detail", message);
    body.put("error", message);
    session.ifPresent(s -> body.put("session", s));
    return body;
  }

  /** The reason of a bare HTTP status that no rule of ours answered (a route not found, …). */
  public static String reasonOf(int status) {
    return switch (status) {
      case 400 -> "INVALID_INPUT";
      case 404 -> "NOT_FOUND";
      case 405 -> "METHOD_NOT_ALLOWED";
      case 413 -> "PAYLOAD_TOO_LARGE";
      default -> "HTTP_" + status;
    };
  }

  public static String title(int status) {
    return switch (status) {
      case 400 -> "Bad Request";
      case 401 -> "Unauthorized";
      case 403 -> "Forbidden";
      case 404 -> "Not Found";
      case 408 -> "Request Timeout";
      case 409 -> "Conflict";
      case 410 -> "Gone";
      case 412 -> "Precondition Failed";
      case 413 -> "Content Too Large";
      case 422 -> "Unprocessable Content";
      case 429 -> "Too Many Requests";
      case 502 -> "Bad Gateway";
      case 503 -> "Service Unavailable";
      case 504 -> "Gateway Timeout";
      case 507 -> "Insufficient Storage";
      default -> status >= 500 ? "Internal Server Error" : "Error";
    };
  }
}
