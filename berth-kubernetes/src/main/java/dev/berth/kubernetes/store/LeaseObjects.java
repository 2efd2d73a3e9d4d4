package dev.berth.kubernetes.store;

import dev.berth.core.session.SessionId;
import dev.berth.store.CorruptRecordException;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseSpec;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * How a session lease is kept in a {@code coordination.k8s.io/v1} Lease: the spec as any Lease
 * reader expects it (holderIdentity, leaseDurationSeconds, acquireTime, renewTime, and
 * leaseTransitions counting holder changes), and two annotations the store decides by: the fencing
 * token ({@link Layout#TOKEN}), which only grows, and the exact expiry ({@link Layout#EXPIRES_AT}),
 * because leaseDurationSeconds holds whole seconds and the port's expiry is {@code now + ttl} to
 * the nanosecond. A reader of the spec alone sees the lease end at most a second later than the
 * store does, never earlier. Release clears the holder but keeps the object, so its token is never
 * issued again.
 */
final class LeaseObjects {

  static final String KIND = "lease";

  private LeaseObjects() {}

  /** What a Lease says: its holder (null when free), highest token, and expiry (null when free). */
  record Held(@Nullable String holder, long token, @Nullable Instant expiresAt) {
    static final Held NEVER = new Held(null, 0, null);

    boolean isLiveAt(Instant now) {
      return holder != null && expiresAt != null && expiresAt.isAfter(now);
    }
  }

  static Lease newLease(Layout layout, SessionId session) {
    Lease lease = new Lease();
    lease.setMetadata(Layout.metadata(Layout.lease(session), layout.selector(KIND, session)));
    lease.setSpec(new LeaseSpec());
    return lease;
  }

  static Held read(Lease lease) {
    Map<String, String> notes = Layout.annotations(lease);
    String subject = "Lease " + lease.getMetadata().getName();
    String token = notes.get(Layout.TOKEN);
    if (token == null) {
      throw new CorruptRecordException(
          subject, "it has no annotation " + Layout.TOKEN, Layout.REPAIR);
    }
    String holder = lease.getSpec() == null ? null : lease.getSpec().getHolderIdentity();
    String expires = notes.get(Layout.EXPIRES_AT);
    if (holder != null && expires == null) {
      throw new CorruptRecordException(
          subject, "holder " + holder + " has no annotation " + Layout.EXPIRES_AT, Layout.REPAIR);
    }
    try {
      return new Held(
          holder, Long.parseLong(token), expires == null ? null : Instant.parse(expires));
    } catch (NumberFormatException | DateTimeParseException e) {
      throw new CorruptRecordException(
          subject, "an annotation is unreadable: " + e.getMessage(), Layout.REPAIR, e);
    }
  }

  /**
   * Makes {@code lease} held by {@code holder} under {@code token} until {@code now + ttl}; a token
   * it did not record yet starts a new tenure (acquireTime, leaseTransitions).
   */
  static void hold(Lease lease, String holder, long token, Instant now, Duration ttl) {
    LeaseSpec spec = spec(lease);
    if (!Long.toString(token).equals(Layout.annotations(lease).get(Layout.TOKEN))) {
      spec.setAcquireTime(now.atZone(ZoneOffset.UTC));
      spec.setLeaseTransitions((int) Math.min(Integer.MAX_VALUE, token - 1));
    }
    spec.setHolderIdentity(holder);
    spec.setRenewTime(now.atZone(ZoneOffset.UTC));
    spec.setLeaseDurationSeconds(wholeSeconds(ttl));
    Layout.annotations(lease).put(Layout.TOKEN, Long.toString(token));
    Layout.annotations(lease).put(Layout.EXPIRES_AT, now.plus(ttl).toString());
  }

  /** Makes {@code lease} free; its token stays. */
  static void free(Lease lease) {
    LeaseSpec spec = spec(lease);
    spec.setHolderIdentity(null);
    spec.setRenewTime(null);
    Layout.annotations(lease).remove(Layout.EXPIRES_AT);
  }

  /** {@code ttl} rounded up to whole seconds, as leaseDurationSeconds holds it. */
  private static int wholeSeconds(Duration ttl) {
    long seconds = ttl.getSeconds() + (ttl.getNano() > 0 ? 1 : 0);
    return (int) Math.max(1, Math.min(Integer.MAX_VALUE, seconds));
  }

  private static LeaseSpec spec(Lease lease) {
    if (lease.getSpec() == null) {
      lease.setSpec(new LeaseSpec());
    }
    return lease.getSpec();
  }
}
