package dev.berth.client;

import com.fasterxml.jackson.annotation.JacksonInject;
import com.fasterxml.jackson.annotation.OptBoolean;
import dev.berth.core.session.SessionId;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import tools.jackson.databind.JsonNode;

/**
 * A session as {@code docs/api.md} describes it: the original platform's fields ({@code id}, {@code
 * name}, {@code workloadType}, {@code state}, {@code createdAt}, {@code lastAccess}, {@code pod},
 * {@code checkpoint}) and the ones Berth adds. Fields whose shape the API leaves open ({@code
 * archive}, {@code reservation}, {@code obligations}) are kept as JSON. Unknown fields are ignored;
 * {@link #json()} has the object exactly as the server sent it.
 *
 * @param state the original's {@code active | idle | snapshot} for every session an access can
 *     serve (one provisioning reads {@code active}, one restoring {@code snapshot}), {@code failed}
 *     for one none can, {@code deleted} for one listed with {@code deleted=true}; kept as text so a
 *     new state does not break the client
 * @param phase the precise lifecycle ({@code PROVISIONING}, {@code READY}, {@code SUSPENDING},
 *     {@code RESUMING}, {@code TERMINATED}, …)
 * @param pod the runtime's name (the original's field), absent when there is none
 */
public record SessionView(
    SessionId id,
    String name,
    String workloadType,
    String state,
    Optional<Instant> createdAt,
    Optional<Instant> lastAccess,
    Optional<String> pod,
    Optional<Checkpoint> checkpoint,
    Optional<String> tenant,
    Optional<String> phase,
    OptionalLong intentVersion,
    Optional<Intent> intent,
    Optional<RuntimeInfo> runtime,
    Optional<JsonNode> archive,
    List<Condition> conditions,
    Optional<JsonNode> reservation,
    List<JsonNode> obligations,
    Optional<Activity> activity,
    Optional<Failure> failure,
    Optional<String> operation,
    @JacksonInject(value = Json.RAW, useInput = OptBoolean.FALSE) JsonNode json) {

  public SessionView {
    Objects.requireNonNull(id, "session id is required");
    name = Objects.requireNonNullElse(name, "");
    workloadType = Objects.requireNonNullElse(workloadType, "");
    state = Objects.requireNonNullElse(state, "");
    conditions = conditions == null ? List.of() : List.copyOf(conditions);
    obligations = obligations == null ? List.of() : List.copyOf(obligations);
  }

  /** The name of the runtime that hosts the session: {@code runtime.name}, else {@code pod}. */
  public Optional<String> runtimeName() {
    return runtime.flatMap(RuntimeInfo::name).or(() -> pod);
  }

  /** Whether the session can never run again ({@code deleted} or {@code failed}). */
  public boolean isFinal() {
    return state.equals("deleted") || state.equals("failed");
  }

  /**
   * What the session is doing, for people: the phase where it says more than the state ({@code
   * provisioning}, {@code suspending}, {@code restoring}, {@code deleting}, {@code deleted}), else
   * the state.
   */
  public String lifecycle() {
    return switch (phase.orElse("")) {
      case "REQUESTED", "PROVISIONING" -> "provisioning";
      case "SUSPENDING" -> "suspending";
      case "RESUMING" -> "restoring";
      case "TERMINATING" -> "deleting";
      case "TERMINATED" -> "deleted";
      default -> state;
    };
  }

  /** {@code checkpoint}: the archive of a {@code snapshot} session. */
  public record Checkpoint(
      Optional<String> ref,
      OptionalLong sizeBytes,
      Optional<Instant> createdAt,
      Optional<String> reclaimed) {}

  /** {@code intent}: what the session was last asked to be, by whom and why. */
  public record Intent(
      Optional<String> desired,
      OptionalLong version,
      Optional<Instant> requestedAt,
      Optional<String> requestedBy,
      Optional<String> reason) {}

  /** {@code runtime}: the runtime that hosts (or hosted) the session. */
  public record RuntimeInfo(
      Optional<String> kind,
      Optional<String> name,
      OptionalLong incarnation,
      Optional<Instant> startedAt,
      Optional<Instant> lastObservedAt) {}

  /** One of {@code conditions[]}. */
  public record Condition(
      Optional<String> type,
      Optional<String> status,
      Optional<String> reason,
      Optional<String> message,
      Optional<Instant> lastTransitionTime) {}

  /** {@code activity}: the last client access and any keep-alive. */
  public record Activity(Optional<Instant> lastAccess, Optional<Instant> keepAliveUntil) {}

  /** {@code failure}: why the session failed. */
  public record Failure(Optional<String> reason, Optional<String> message) {}
}
