package dev.berth.core.execution;

import dev.berth.core.error.InvalidValueException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * A command to run beside the shell, as {@code bash -c <command>}.
 *
 * @param command non-blank, at most 64 KiB of UTF-8, without NUL (it travels as one argv string)
 * @param timeout between one second and 24 hours; {@link #DEFAULT_TIMEOUT} (one hour) when absent.
 *     An execution that outlives it is cancelled and reported with {@code timedOut}.
 */
public record ExecutionRequest(String command, Optional<Duration> timeout) {
  public static final int MAX_COMMAND_BYTES = 64 * 1024;
  public static final Duration MIN_TIMEOUT = Duration.ofSeconds(1);
  public static final Duration MAX_TIMEOUT = Duration.ofHours(24);
  public static final Duration DEFAULT_TIMEOUT = Duration.ofHours(1);

  public ExecutionRequest {
    Objects.requireNonNull(timeout, "timeout");
    if (command == null || command.isBlank()) {
      throw new InvalidValueException("execution command must not be blank");
    }
    int bytes = command.getBytes(StandardCharsets.UTF_8).length;
    if (bytes > MAX_COMMAND_BYTES) {
      throw new InvalidValueException(
          "execution command must be at most " + MAX_COMMAND_BYTES + " bytes, was " + bytes);
    }
    if (command.indexOf('\0') >= 0) {
      throw new InvalidValueException("execution command must not contain NUL characters");
    }
    timeout.ifPresent(ExecutionRequest::checkTimeout);
  }

  /** {@code command} with the default timeout. */
  public static ExecutionRequest of(String command) {
    return new ExecutionRequest(command, Optional.empty());
  }

  /** {@code command} with {@code timeout}. */
  public static ExecutionRequest of(String command, Duration timeout) {
    return new ExecutionRequest(command, Optional.of(timeout));
  }

  /** The timeout that applies: the requested one or the default. */
  public Duration effectiveTimeout() {
    return timeout.orElse(DEFAULT_TIMEOUT);
  }

  private static void checkTimeout(Duration timeout) {
    if (timeout.compareTo(MIN_TIMEOUT) < 0 || timeout.compareTo(MAX_TIMEOUT) > 0) {
      throw new InvalidValueException(
          "execution timeout must be between 1 s and 24 h (86400 s), was "
              + timeout.toSeconds()
              + " s");
    }
  }
}
