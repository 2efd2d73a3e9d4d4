package dev.berth.server.runtime;

import dev.berth.core.agent.Refusal;
import dev.berth.protocol.problem.AgentReason;

/**
 * What the domain makes of each reason an agent answers: the protocol's reasons mapped onto the
 * core's {@link Refusal}, so that the core never reads a reason's spelling.
 */
final class AgentRefusals {

  private AgentRefusals() {}

  static Refusal of(AgentReason reason) {
    return switch (reason) {
      case SUSPENDING -> Refusal.SUSPENDING;
      case ARCHIVE_UNSAFE -> Refusal.ARCHIVE_UNSAFE;
      case ARCHIVE_CORRUPT -> Refusal.ARCHIVE_CORRUPT;
      case ARCHIVE_REFUSED -> Refusal.ARCHIVE_REFUSED;
      case PROMPTS_RUNNING -> Refusal.PROMPTS_RUNNING;
      // A newer agent's reason: the domain has no rule for what it does not know.
      case UNKNOWN,
          INVALID_INPUT,
          UNAUTHENTICATED,
          FORBIDDEN,
          NOT_FOUND,
          METHOD_NOT_ALLOWED,
          PAYLOAD_TOO_LARGE,
          INTERNAL,
          STALE_INTENT,
          SESSION_TERMINATING,
          DEADLINE_EXCEEDED,
          LEASE_EXPIRED,
          LEASE_LOST,
          CONTRACT_CORRUPT,
          RUNTIME_CONFLICT,
          CONFLICT,
          RESTORING,
          STOPPED,
          INTERRUPTED,
          SHELL_EXITED,
          INPUT_BLOCKED,
          ISOLATION_UNAVAILABLE,
          NOT_AN_AGENT,
          NOT_A_SHELL,
          AGENT_MISSING,
          PROMPT_TOO_LARGE,
          PROMPT_QUEUE_FULL,
          OUTPUT_FULL,
          PLUGIN_UNAVAILABLE,
          PLUGINS_FOLDER_UNSAFE,
          ALREADY_EXISTS,
          INVALID_STATE,
          AGENT_UNREACHABLE,
          WORKLOAD_NOT_ALLOWED,
          QUOTA_EXCEEDED,
          PRECONDITION_FAILED,
          SNAPSHOT_REFUSED,
          SNAPSHOT_UNAVAILABLE,
          RUNTIME_UNAVAILABLE,
          WORKLOAD_UNAVAILABLE,
          ALREADY_RECOVERED,
          NOT_RECOVERABLE,
          RECOVERY_WINDOW_ENDED ->
          Refusal.OTHER;
    };
  }
}
