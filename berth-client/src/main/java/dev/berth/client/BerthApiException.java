package dev.berth.client;

import java.util.Optional;

/**
 * The server refused a request: its status, the problem's {@code reason} (as {@code NOT_FOUND}),
 * its message and the session it names. When the error body is not a problem document (a proxy's
 * HTML page, say) the reason is {@code HTTP_<status>} and the message quotes the start of the body.
 */
public final class BerthApiException extends BerthClientException {

  private static final long serialVersionUID = 1L;

  private final int status;
  private final String reason;
  private final transient Optional<String> session;
  private final transient Optional<Problem> problem;

  BerthApiException(int status, String reason, String message, Optional<Problem> problem) {
    super(message, null);
    this.status = status;
    this.reason = reason;
    this.problem = problem;
    this.session = problem.flatMap(Problem::session);
  }

  /** The HTTP status, as 404. */
  public int status() {
    return status;
  }

  @Override
  public String reason() {
    return reason;
  }

  /** The session the problem names, when it names one. */
  public Optional<String> session() {
    return session;
  }

  /** The problem document, when the body was one. */
  public Optional<Problem> problem() {
    return problem;
  }
}
