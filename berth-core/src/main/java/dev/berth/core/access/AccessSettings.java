package dev.berth.core.access;

import dev.berth.core.idle.IdleSettings;
import java.time.Duration;

/**
 * How long requests wait for the reconciler, the idle policy's timings, and whether sessions are
 * suspended at all (off: a snapshot request is refused as unavailable and the idle policy only
 * explains).
 */
public record AccessSettings(
    Duration createWait,
    Duration deleteWait,
    Duration suspendWait,
    IdleSettings idle,
    boolean suspendEnabled) {

  public static AccessSettings defaults() {
    return new AccessSettings(
        Duration.ofMinutes(2),
        Duration.ofMinutes(1),
        Duration.ofMinutes(2),
        IdleSettings.defaults(),
        true);
  }

  public AccessSettings withIdle(IdleSettings timings) {
    return new AccessSettings(createWait, deleteWait, suspendWait, timings, suspendEnabled);
  }

  public AccessSettings withSuspendEnabled(boolean enabled) {
    return new AccessSettings(createWait, deleteWait, suspendWait, idle, enabled);
  }

  public Duration idleAfter() {
    return idle.idleAfter();
  }
}
