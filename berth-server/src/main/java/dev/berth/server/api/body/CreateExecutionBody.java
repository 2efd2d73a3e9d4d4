package dev.berth.server.api.body;

import dev.berth.core.execution.ExecutionRequest;
import dev.berth.server.api.StrictJson;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.Optional;

/**
 * The body of {@code POST /sessions/{id}/executions}; required. The limits are the agent's ({@link
 * ExecutionRequest}), checked here too so that a bad command is refused before the session is
 * touched.
 *
 * @param command the command to run as {@code bash -c <command>}: not blank, at most {@value
 *     ExecutionRequest#MAX_COMMAND_BYTES} bytes of UTF-8, without NUL; required
 * @param timeoutSeconds 1 to 86400; absent means the agent's default (one hour)
 */
public record CreateExecutionBody(String command, Optional<Long> timeoutSeconds) {

  public CreateExecutionBody {
    Objects.requireNonNull(timeoutSeconds, "timeoutSeconds");
    if (command == null) {
      throw StrictJson.missingField("command");
    }
    if (command.isBlank()) {
      throw StrictJson.invalidField("command", "must not be blank", command);
    }
    int bytes = command.getBytes(StandardCharsets.UTF_8).length;
    if (bytes > ExecutionRequest.MAX_COMMAND_BYTES) {
      throw StrictJson.invalidField(
          "command",
          "must be at most " + ExecutionRequest.MAX_COMMAND_BYTES + " bytes of UTF-8",
          bytes);
    }
    if (command.indexOf('\0') >= 0) {
      throw StrictJson.invalidField("command", "must not contain NUL characters", command);
    }
    timeoutSeconds.ifPresent(CreateExecutionBody::checkTimeout);
  }

  private static void checkTimeout(long seconds) {
    long min = ExecutionRequest.MIN_TIMEOUT.toSeconds();
    long max = ExecutionRequest.MAX_TIMEOUT.toSeconds();
    if (seconds < min || seconds > max) {
      throw StrictJson.invalidField(
          "timeoutSeconds", "must be between " + min + " and " + max, seconds);
    }
  }

  /** The request the data plane runs (already within its limits). */
  public ExecutionRequest request() {
    return new ExecutionRequest(command, timeoutSeconds.map(java.time.Duration::ofSeconds));
  }
}
