package dev.berth.server;

import dev.berth.core.tenant.DisconnectGrant;
import java.time.Duration;
import java.util.Objects;

/**
 * The control lease the server holds its runtimes to (STATE-MODEL §4 "Disconnection").
 *
 * @param ttl how long a renewal keeps a runtime's lease; renewed every third of it ({@code
 *     --control-lease-ttl})
 * @param defaultPolicy what a runtime does when its lease expired, for sessions whose tenant has no
 *     policy of its own ({@code --disconnect-policy}, {@code --disconnect-grace})
 * @param concurrency how many renewals run at once
 */
public record ControlLeaseSettings(Duration ttl, DisconnectGrant defaultPolicy, int concurrency) {

  /** The shortest time to live: renewed every second. */
  public static final Duration MIN_TTL = Duration.ofSeconds(3);

  /** The longest: the agents refuse a longer one. */
  public static final Duration MAX_TTL = Duration.ofHours(1);

  public ControlLeaseSettings {
    Objects.requireNonNull(ttl, "ttl");
    Objects.requireNonNull(defaultPolicy, "defaultPolicy");
    if (ttl.compareTo(MIN_TTL) < 0 || ttl.compareTo(MAX_TTL) > 0) {
      throw new IllegalArgumentException(
          "--control-lease-ttl must be between "
              + MIN_TTL.toSeconds()
              + "s and "
              + MAX_TTL.toMinutes()
              + "m, got "
              + ttl.toSeconds()
              + "s; it is renewed every third of it");
    }
    if (concurrency < 1) {
      throw new IllegalArgumentException("concurrency must be >= 1, got " + concurrency);
    }
  }

  /**
   * A 60 s lease renewed every 20 s; runtimes of tenants without a policy continue for 15 minutes
   * without their control plane, then stop.
   */
  public static ControlLeaseSettings defaults() {
    return new ControlLeaseSettings(
        Duration.ofSeconds(60), DisconnectGrant.keepFor(Duration.ofMinutes(15)), 8);
  }

  public ControlLeaseSettings withTtl(Duration value) {
    return new ControlLeaseSettings(value, defaultPolicy, concurrency);
  }

  public ControlLeaseSettings withDefaultPolicy(DisconnectGrant policy) {
    return new ControlLeaseSettings(ttl, policy, concurrency);
  }
}
