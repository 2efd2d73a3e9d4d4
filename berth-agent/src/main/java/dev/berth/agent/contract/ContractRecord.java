package dev.berth.agent.contract;

import dev.berth.core.error.InvalidValueException;
import dev.berth.core.operation.OperationId;
import dev.berth.core.session.DesiredState;
import dev.berth.core.session.SessionId;
import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * What the host persists per session, outside any one runtime's directory: the highest intent
 * version it accepted, the desired state that version was accepted for, the termination tombstone,
 * and the replies of the latest operations so that a repeated command answers as before.
 *
 * <p>{@code operations} maps an operation id to the reply recorded for it, oldest first. Only the
 * latest {@link #MAX_OPERATIONS} are kept, so the file stays small however long the session lives.
 * A repeat of a forgotten operation is treated as new: it is refused as stale once the intent
 * version moved on (operation ids are derived from versions), and otherwise runs its effect again,
 * which effects must tolerate (they are idempotent).
 *
 * @param tombstonedAt when the tombstone was written; present exactly when {@code tombstoned}
 */
public record ContractRecord(
    SessionId session,
    long acceptedIntentVersion,
    DesiredState acceptedDesired,
    boolean tombstoned,
    Optional<Instant> tombstonedAt,
    Map<String, String> operations) {

  /** How many operation replies are remembered. */
  public static final int MAX_OPERATIONS = 256;

  public ContractRecord {
    Objects.requireNonNull(session, "session");
    Objects.requireNonNull(acceptedDesired, "acceptedDesired");
    Objects.requireNonNull(tombstonedAt, "tombstonedAt");
    Objects.requireNonNull(operations, "operations");
    if (acceptedIntentVersion < 0) {
      throw new InvalidValueException(
          "session "
              + session
              + ": accepted intent version must be >= 0, was "
              + acceptedIntentVersion);
    }
    if (tombstoned != tombstonedAt.isPresent()) {
      throw new InvalidValueException(
          "session "
              + session
              + ": tombstonedAt must be present exactly when tombstoned, was "
              + tombstonedAt
              + " with tombstoned="
              + tombstoned);
    }
    if (tombstoned && acceptedDesired != DesiredState.TERMINATED) {
      throw new InvalidValueException(
          "session "
              + session
              + ": a tombstoned contract must desire TERMINATED, was "
              + acceptedDesired);
    }
    operations.forEach(
        (id, reply) -> {
          new OperationId(id);
          Objects.requireNonNull(reply, "reply of operation " + id);
        });
    operations = Collections.unmodifiableMap(new LinkedHashMap<>(operations));
  }

  /** The contract of a session that has accepted no command yet: version 0, desired RUNNING. */
  public static ContractRecord fresh(SessionId session) {
    return new ContractRecord(session, 0, DesiredState.RUNNING, false, Optional.empty(), Map.of());
  }

  /** The reply recorded for {@code operation}, if it is among the remembered ones. */
  public Optional<String> replyTo(OperationId operation) {
    return Optional.ofNullable(operations.get(operation.value()));
  }

  /** This contract after accepting {@code version} for {@code desired} and recording the reply. */
  ContractRecord accepting(
      long version, DesiredState desired, OperationId operation, String reply) {
    return new ContractRecord(
        session,
        Math.max(acceptedIntentVersion, version),
        desired,
        tombstoned,
        tombstonedAt,
        remembering(operation, reply));
  }

  /** This contract after accepting termination at {@code version}, tombstoned at {@code at}. */
  ContractRecord tombstoning(long version, OperationId operation, String reply, Instant at) {
    return new ContractRecord(
        session,
        Math.max(acceptedIntentVersion, version),
        DesiredState.TERMINATED,
        true,
        Optional.of(at),
        remembering(operation, reply));
  }

  private Map<String, String> remembering(OperationId operation, String reply) {
    var next = new LinkedHashMap<>(operations);
    next.remove(operation.value());
    next.put(operation.value(), reply);
    var oldest = next.keySet().iterator();
    while (next.size() > MAX_OPERATIONS) {
      oldest.next();
      oldest.remove();
    }
    return next;
  }
}
