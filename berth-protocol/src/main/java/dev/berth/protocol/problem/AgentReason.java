package dev.berth.protocol.problem;

import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Every stable machine {@code reason} a node agent answers in its problem+json (and in an attach's
 * {@code error} frame): the agent produces only these, and the control plane's agent client parses
 * them back. Each constant is spelled on the wire as its name.
 *
 * <p>A newer agent may answer a reason this build does not know: {@link #parse} reads it as {@link
 * #UNKNOWN} instead of failing, and the reader keeps the raw text to report it.
 */
public enum AgentReason {
  // The request itself.
  /** Malformed JSON, an unknown field, a bad cursor or size. */
  INVALID_INPUT,
  /** A missing or wrong bearer token. */
  UNAUTHENTICATED,
  FORBIDDEN,
  /** No such session, runtime, execution or route on this host. */
  NOT_FOUND,
  METHOD_NOT_ALLOWED,
  /** An input frame or a body over its limit. */
  PAYLOAD_TOO_LARGE,
  /** A failure of the agent's own (a disk, a broken upload). */
  INTERNAL,

  // The local contract.
  /** The command's intent version is below the highest the session accepted. */
  STALE_INTENT,
  /** The session has a termination tombstone. */
  SESSION_TERMINATING,
  /** The command's deadline passed before it was admitted. */
  DEADLINE_EXCEEDED,
  /** The control lease expired and the disconnect policy closed admission. */
  LEASE_EXPIRED,
  /** A write carried a fencing token older than the current holder's. */
  LEASE_LOST,
  /** The session's contract file exists but cannot be read. */
  CONTRACT_CORRUPT,

  // The hosted runtime.
  /** A {@code PUT} names another incarnation than the one hosted, which still runs. */
  RUNTIME_CONFLICT,
  /** A command that does not fit the runtime's state or an operation already recorded. */
  CONFLICT,
  /** The runtime awaits its archive. */
  RESTORING,
  /** The runtime is paused for a checkpoint: admission is closed. */
  SUSPENDING,
  /** The runtime was stopped by its host. */
  STOPPED,
  /** A checkpoint was interrupted. */
  INTERRUPTED,
  /** The runtime runs no shell any more. */
  SHELL_EXITED,
  /** The shell has not read its input while the queue is full. */
  INPUT_BLOCKED,
  /** The sandbox the runtime needs cannot be set up on this node. */
  ISOLATION_UNAVAILABLE,

  // Archives.
  /** A restored archive leaves its target, smuggles a special file or exceeds a limit. */
  ARCHIVE_UNSAFE,
  /** A restored archive is not a well-formed archive of this session and generation. */
  ARCHIVE_CORRUPT,
  /** A checkpoint is refused: its restore would refuse the archive it would make. */
  ARCHIVE_REFUSED,

  // Agent sessions.
  /** A prompt, transcript or plugin refresh for a shell. */
  NOT_AN_AGENT,
  /** Terminal input or a command for an agent session. */
  NOT_A_SHELL,
  /** An agent runtime provisioned without its agent. */
  AGENT_MISSING,
  /** Prompts still run where none may (a checkpoint after the drain, a plugin refresh). */
  PROMPTS_RUNNING,
  PROMPT_TOO_LARGE,
  PROMPT_QUEUE_FULL,
  OUTPUT_FULL,
  PLUGIN_UNAVAILABLE,
  PLUGINS_FOLDER_UNSAFE,

  // The domain's rules, which the agent answers as the control plane would should one reach it.
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
  RECOVERY_WINDOW_ENDED,

  /** A reason this build does not know (a newer agent's): never written, only read. */
  UNKNOWN;

  private static final Map<String, AgentReason> BY_WIRE_NAME =
      Stream.of(values())
          .filter(r -> r != UNKNOWN)
          .collect(Collectors.toUnmodifiableMap(AgentReason::wireName, Function.identity()));

  /** The reason as the problem document spells it. */
  public String wireName() {
    return name();
  }

  /** The reason {@code wire} names, or {@link #UNKNOWN} for one this build does not know. */
  public static AgentReason parse(String wire) {
    return BY_WIRE_NAME.getOrDefault(wire, UNKNOWN);
  }

  /**
   * The reason of a bare HTTP status that no rule of the agent answered (a route not found, a body
   * the server refused before any route ran).
   */
  public static AgentReason ofStatus(int status) {
    return switch (status) {
      case 401 -> UNAUTHENTICATED;
      case 403 -> FORBIDDEN;
      case 404 -> NOT_FOUND;
      case 405 -> METHOD_NOT_ALLOWED;
      case 409 -> CONFLICT;
      case 413 -> PAYLOAD_TOO_LARGE;
      default -> status >= 500 ? INTERNAL : INVALID_INPUT;
    };
  }
}
