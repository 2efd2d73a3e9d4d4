package dev.berth.core.access;

import dev.berth.core.session.Session;
import dev.berth.core.session.SessionId;
import dev.berth.core.store.Retry;
import dev.berth.core.store.SessionStore;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Optional;

/**
 * Holds a session against suspension until now + the hold (capped at the policy's maximum, which is
 * also the default). Not access: {@code lastAccess} does not move.
 */
public final class KeepSessionAlive {

  private final SessionStore store;
  private final SessionLookup lookup;
  private final InstantSource clock;
  private final Duration maxHold;

  public KeepSessionAlive(SessionStore store, InstantSource clock, Duration maxHold) {
    this.store = store;
    this.lookup = new SessionLookup(store, clock);
    this.clock = clock;
    this.maxHold = maxHold;
  }

  public Session keepAlive(Scope scope, SessionId id, Optional<Duration> hold) {
    Duration wanted = hold.map(h -> h.compareTo(maxHold) > 0 ? maxHold : h).orElse(maxHold);
    return Retry.onConflict(
        () -> {
          Session current = lookup.get(scope, id);
          return store.compareAndSet(
              current.withActivity(current.activity().keptAliveUntil(clock.instant().plus(wanted))),
              current.version());
        });
  }
}
