package dev.berth.cli;

import dev.berth.core.error.InvalidValueException;
import dev.berth.core.tenant.DisconnectGrant;
import dev.berth.server.ControlLeaseSettings;
import java.time.Duration;
import picocli.CommandLine.Option;

/**
 * The server's control lease options (docs/operations.md, "The control lease"): how long a renewal
 * keeps a runtime's lease, and what a runtime of a tenant without a disconnect policy of its own
 * does when its lease expires.
 */
final class ControlLeaseOptions {

  @Option(
      names = "--control-lease-ttl",
      paramLabel = "DURATION",
      defaultValue = "60s",
      converter = DurationConverter.class,
      description =
          "How long each renewal keeps a runtime's control lease; the server renews every third"
              + " of it, and a runtime whose lease expired applies its disconnect policy (default:"
              + " ${DEFAULT-VALUE}).")
  private Duration ttl = Duration.ofSeconds(60);

  @Option(
      names = "--disconnect-policy",
      paramLabel = "continue|stop",
      defaultValue = "continue",
      description =
          "What a runtime does once its control lease expired, for tenants without a policy of"
              + " their own: keep the workload for --disconnect-grace, or stop it at once"
              + " (default: ${DEFAULT-VALUE}).")
  private String policy = "continue";

  @Option(
      names = "--disconnect-grace",
      paramLabel = "DURATION",
      defaultValue = "15m",
      converter = DurationConverter.class,
      description =
          "How long a runtime under continue keeps its workload after its lease expired, at most"
              + " 7d (default: ${DEFAULT-VALUE}).")
  private Duration grace = Duration.ofMinutes(15);

  /**
   * The settings these options give.
   *
   * @throws IllegalArgumentException naming the option and the value it refused
   */
  ControlLeaseSettings settings() {
    DisconnectGrant grant;
    try {
      grant =
          DisconnectGrant.Policy.parse(policy) == DisconnectGrant.Policy.STOP
              ? DisconnectGrant.stop()
              : DisconnectGrant.keepFor(grace);
    } catch (InvalidValueException e) {
      throw new IllegalArgumentException(
          "--disconnect-policy/--disconnect-grace: " + e.getMessage(), e);
    }
    return ControlLeaseSettings.defaults().withTtl(ttl).withDefaultPolicy(grant);
  }
}
