package dev.berth.core.session;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * The runtime the platform believes may exist for a session. Its name is derived from the session
 * id and the incarnation, and it is recorded before the runtime is created, so a crash between
 * creating and recording can always be found again by name.
 *
 * @param kind the runtime adapter, e.g. {@code local} or {@code kubernetes}
 * @param endpoint where the agent answers, once known
 */
public record RuntimeRef(
    String kind,
    String name,
    long incarnation,
    Optional<String> endpoint,
    Optional<Instant> startedAt,
    Optional<Instant> lastObservedAt) {

  public RuntimeRef {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(endpoint, "endpoint");
    Objects.requireNonNull(startedAt, "startedAt");
    Objects.requireNonNull(lastObservedAt, "lastObservedAt");
    if (incarnation < 1) {
      throw new IllegalArgumentException("incarnation must be >= 1, was " + incarnation);
    }
  }

  /** The deterministic runtime name of a session's incarnation. */
  public static String nameFor(SessionId session, long incarnation) {
    return "berth-" + session.value() + "-" + incarnation;
  }

  /** A runtime that is about to be created and has not been observed yet. */
  public static RuntimeRef planned(String kind, SessionId session, long incarnation) {
    return new RuntimeRef(
        kind,
        nameFor(session, incarnation),
        incarnation,
        Optional.empty(),
        Optional.empty(),
        Optional.empty());
  }

  public RuntimeRef observedAt(Instant now, Optional<String> endpointNow) {
    return new RuntimeRef(
        kind,
        name,
        incarnation,
        endpointNow.or(() -> endpoint),
        startedAt.or(() -> Optional.of(now)),
        Optional.of(now));
  }
}
