package dev.berth.server.api;

import java.io.IOException;
import java.util.concurrent.TimeoutException;

/**
 * A request body could not be read to its end: it arrived slower than the server's read timeout
 * ({@code 408 REQUEST_TIMEOUT}), or the client stopped sending it before its declared end ({@code
 * 400 INVALID_INPUT}). Either way the request is the client's fault, so it is answered as such and
 * not logged as a server failure. Where the connection is already gone the answer is lost, but no
 * error is logged for it either.
 *
 * <p>Not a {@link dev.berth.core.error.BerthException}: how a body arrives is the web layer's
 * concern, as its size is ({@link PayloadTooLargeException}).
 */
public final class UnreadableBodyException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final boolean timedOut;

  private UnreadableBodyException(String message, boolean timedOut, IOException cause) {
    super(message, cause);
    this.timedOut = timedOut;
  }

  /** The refusal of a body whose read failed with {@code failure}. */
  static UnreadableBodyException of(IOException failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof TimeoutException) {
        return new UnreadableBodyException(
            "the request body arrived slower than the server's read timeout; send it at once",
            true,
            failure);
      }
    }
    return new UnreadableBodyException(
        "the request body ended before its declared length (the client stopped sending it)",
        false,
        failure);
  }

  /** {@code 408} when the body was too slow, else {@code 400}. */
  public int status() {
    return timedOut ? 408 : 400;
  }

  /** The stable machine reason: {@code REQUEST_TIMEOUT} or {@code INVALID_INPUT}. */
  public String reason() {
    return timedOut ? "REQUEST_TIMEOUT" : "INVALID_INPUT";
  }
}
