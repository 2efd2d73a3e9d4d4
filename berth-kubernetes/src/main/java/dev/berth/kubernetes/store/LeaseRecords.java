package dev.berth.kubernetes.store;

import dev.berth.core.error.InvalidValueException;
import dev.berth.core.error.StaleFenceException;
import dev.berth.core.session.SessionId;
import dev.berth.core.store.FencingToken;
import dev.berth.core.store.Lease;
import dev.berth.core.store.SessionLeases;
import dev.berth.kubernetes.store.KubeObjects.Edit;
import dev.berth.kubernetes.store.LeaseObjects.Held;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Objects;
import java.util.Optional;

/**
 * The session leases, one Lease object each ({@link LeaseObjects}). Every change is a {@link
 * KubeObjects#edit} of the Lease, so of several acquirers exactly one wins: the first create, or
 * the first update under the resourceVersion all of them read; the others read again and find a
 * live lease of another holder. Expiry is judged by the injected clock, never the API server's.
 *
 * <p>A new token is not the end of an acquisition: the session's ConfigMap fence is then raised to
 * it ({@link FenceRaiser}), and only after that is the lease handed out, so no write fenced with an
 * older token can land once the new holder acts. Every acquisition raises the fence (it reads the
 * ConfigMap and writes only when the fence is lower), so an acquisition that stopped between its
 * Lease write and its raise is completed by the holder's next acquire.
 */
final class LeaseRecords implements SessionLeases, IssuedTokens {

  /** Raises a session ConfigMap's fence to a newly issued token. */
  @FunctionalInterface
  interface FenceRaiser {
    void raise(SessionId session, long token);
  }

  private final KubeObjects<io.fabric8.kubernetes.api.model.coordination.v1.Lease> leases;
  private final Layout layout;
  private final InstantSource clock;
  private final FenceRaiser fences;
  private final java.util.function.LongSupplier epoch;

  LeaseRecords(
      KubeObjects<io.fabric8.kubernetes.api.model.coordination.v1.Lease> leases,
      Layout layout,
      InstantSource clock,
      FenceRaiser fences) {
    this(leases, layout, clock, fences, () -> 0L);
  }

  /**
   * @param epoch reads the store epoch: a new token starts at least at its first ({@link
   *     FencingToken#next}), so none is reused after a restore of an older backup
   */
  LeaseRecords(
      KubeObjects<io.fabric8.kubernetes.api.model.coordination.v1.Lease> leases,
      Layout layout,
      InstantSource clock,
      FenceRaiser fences,
      java.util.function.LongSupplier epoch) {
    this.epoch = epoch;
    this.leases = leases;
    this.layout = layout;
    this.clock = clock;
    this.fences = fences;
  }

  @Override
  public Optional<Lease> acquire(SessionId session, String holder, Duration ttl) {
    requirePositive(ttl);
    Optional<Lease> acquired =
        leases.edit(
            Layout.lease(session),
            current -> {
              Instant now = clock.instant();
              Held held = current.map(LeaseObjects::read).orElse(Held.NEVER);
              boolean live = held.isLiveAt(now);
              if (live && !holder.equals(held.holder())) {
                return Edit.keep(Optional.empty());
              }
              long token =
                  live ? held.token() : FencingToken.next(held.token(), epoch.getAsLong()).value();
              var lease = current.orElseGet(() -> LeaseObjects.newLease(layout, session));
              LeaseObjects.hold(lease, holder, token, now, ttl);
              return Edit.write(
                  lease,
                  Optional.of(new Lease(session, holder, new FencingToken(token), now.plus(ttl))));
            });
    acquired.ifPresent(l -> fences.raise(session, l.token().value()));
    return acquired;
  }

  @Override
  public Lease renew(Lease lease, Duration ttl) {
    requirePositive(ttl);
    SessionId session = lease.sessionId();
    long offered = lease.token().value();
    return leases.edit(
        Layout.lease(session),
        current -> {
          Instant now = clock.instant();
          Held held = current.map(LeaseObjects::read).orElse(Held.NEVER);
          if (current.isEmpty() || !held.isLiveAt(now) || held.token() != offered) {
            throw new StaleFenceException("lease of session " + session, offered, held.token());
          }
          LeaseObjects.hold(current.get(), lease.holder(), offered, now, ttl);
          return Edit.write(
              current.get(), new Lease(session, lease.holder(), lease.token(), now.plus(ttl)));
        });
  }

  @Override
  public void release(Lease lease) {
    leases.edit(
        Layout.lease(lease.sessionId()),
        current -> {
          Held held = current.map(LeaseObjects::read).orElse(Held.NEVER);
          if (current.isEmpty() || held.holder() == null || held.token() != lease.token().value()) {
            return Edit.keep(false);
          }
          LeaseObjects.free(current.get());
          return Edit.write(current.get(), true);
        });
  }

  @Override
  public Optional<Lease> current(SessionId session) {
    Instant now = clock.instant();
    return leases
        .get(Layout.lease(session))
        .map(LeaseObjects::read)
        .filter(h -> h.isLiveAt(now))
        .map(
            h ->
                new Lease(
                    session,
                    Objects.requireNonNull(h.holder()),
                    new FencingToken(h.token()),
                    Objects.requireNonNull(h.expiresAt())));
  }

  @Override
  public long highest(SessionId session) {
    return leases.get(Layout.lease(session)).map(l -> LeaseObjects.read(l).token()).orElse(0L);
  }

  private static void requirePositive(Duration ttl) {
    if (ttl.isNegative() || ttl.isZero()) {
      throw new InvalidValueException("lease ttl must be positive, was " + ttl);
    }
  }
}
