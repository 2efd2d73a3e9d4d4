package dev.berth.server.api;

/**
 * A request body is larger than the server accepts ({@link StrictJson#MAX_BODY_BYTES}). It is
 * raised before anything else happens for the request: before the body is read when its declared
 * length is already too large, otherwise as soon as one byte more than the limit arrived. Answered
 * as {@code 413} with reason {@code PAYLOAD_TOO_LARGE}.
 *
 * <p>Not a {@link dev.berth.core.error.BerthException}: the size of a wire body is the web layer's
 * rule, not the domain's.
 */
public final class PayloadTooLargeException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final long limit;

  public PayloadTooLargeException(long limit) {
    super("request body exceeds size limit (" + limit + " bytes)");
    this.limit = limit;
  }

  /** The limit that was exceeded, in bytes. */
  public long limit() {
    return limit;
  }

  /** The stable machine reason, {@code PAYLOAD_TOO_LARGE}. */
  public String reason() {
    return "PAYLOAD_TOO_LARGE";
  }
}
