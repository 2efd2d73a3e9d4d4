package dev.berth.core.lifecycle;

import java.time.Duration;
import java.util.Objects;

/**
 * Timings and choices of the lifecycle protocols.
 *
 * @param holder this control plane's identity as a lease holder
 * @param installation the installation id written into every runtime's ownership labels
 * @param leaseTtl how long a session lease lives without renewal
 * @param commandTimeout the deadline given to each agent command, from now
 * @param operationTimeout the deadline of an operation, from its creation
 * @param recoveryWindow how long the last archive of a terminated session is kept
 * @param restoreOnRuntimeLoss whether a session whose runtime vanished is restored from its last
 *     archive (otherwise it fails with RUNTIME_LOST)
 */
public record LifecycleSettings(
    String holder,
    String installation,
    Duration leaseTtl,
    Duration commandTimeout,
    Duration operationTimeout,
    Duration recoveryWindow,
    boolean restoreOnRuntimeLoss) {

  public LifecycleSettings {
    Objects.requireNonNull(holder, "holder");
    Objects.requireNonNull(installation, "installation");
    requirePositive("leaseTtl", leaseTtl);
    requirePositive("commandTimeout", commandTimeout);
    requirePositive("operationTimeout", operationTimeout);
    requirePositive("recoveryWindow", recoveryWindow);
  }

  /** The documented defaults: 60 s leases, 7-day recovery window, restore on runtime loss. */
  public static LifecycleSettings defaults(String holder, String installation) {
    return new LifecycleSettings(
        holder,
        installation,
        Duration.ofSeconds(60),
        Duration.ofSeconds(30),
        Duration.ofMinutes(10),
        Duration.ofDays(7),
        true);
  }

  public LifecycleSettings withHolder(String otherHolder) {
    return new LifecycleSettings(
        otherHolder,
        installation,
        leaseTtl,
        commandTimeout,
        operationTimeout,
        recoveryWindow,
        restoreOnRuntimeLoss);
  }

  public LifecycleSettings withRecoveryWindow(Duration window) {
    return new LifecycleSettings(
        holder,
        installation,
        leaseTtl,
        commandTimeout,
        operationTimeout,
        window,
        restoreOnRuntimeLoss);
  }

  public LifecycleSettings withOperationTimeout(Duration timeout) {
    return new LifecycleSettings(
        holder,
        installation,
        leaseTtl,
        commandTimeout,
        timeout,
        recoveryWindow,
        restoreOnRuntimeLoss);
  }

  public LifecycleSettings withRestoreOnRuntimeLoss(boolean restore) {
    return new LifecycleSettings(
        holder, installation, leaseTtl, commandTimeout, operationTimeout, recoveryWindow, restore);
  }

  private static void requirePositive(String name, Duration d) {
    Objects.requireNonNull(d, name);
    if (d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(name + " must be positive, was " + d);
    }
  }
}
