package dev.berth.client;

import org.jspecify.annotations.Nullable;

/**
 * The server could not be reached, or the connection broke before it answered: the message reads
 * {@code cannot reach Berth at <url>: <what happened>}. Nothing is known about whether a request
 * that was sent took effect.
 */
public final class BerthUnreachableException extends BerthClientException {

  private static final long serialVersionUID = 1L;

  BerthUnreachableException(String message, @Nullable Throwable cause) {
    super(message, cause);
  }

  @Override
  public String reason() {
    return "UNREACHABLE";
  }
}
