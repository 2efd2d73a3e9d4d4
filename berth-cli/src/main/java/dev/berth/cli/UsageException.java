package dev.berth.cli;

import java.util.Objects;

/**
 * A command was used in a way it cannot work (no token, a bad URL, attach without a terminal): the
 * message says what to do instead; the exit code is 2.
 */
final class UsageException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  UsageException(String message) {
    super(message);
  }

  /** The message it was made with: never null, as the constructor takes one. */
  @Override
  public String getMessage() {
    return Objects.requireNonNull(super.getMessage());
  }
}
