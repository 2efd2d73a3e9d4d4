package dev.berth.client;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Any failure of a {@link BerthClient} call. Its {@link #reason()} is a stable machine word: the
 * server's problem {@code reason} for {@link BerthApiException}, {@code UNREACHABLE} for {@link
 * BerthUnreachableException}, {@code PROTOCOL} for {@link BerthProtocolException}.
 */
public abstract sealed class BerthClientException extends RuntimeException
    permits BerthApiException, BerthUnreachableException, BerthProtocolException {

  private static final long serialVersionUID = 1L;

  BerthClientException(String message, @Nullable Throwable cause) {
    super(message, cause);
  }

  /** The message it was made with: never null, as every constructor takes one. */
  @Override
  public String getMessage() {
    return Objects.requireNonNull(super.getMessage());
  }

  /** A stable machine word for the failure, as {@code NOT_FOUND} or {@code UNREACHABLE}. */
  public abstract String reason();
}
