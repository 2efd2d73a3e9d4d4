package dev.berth.core.lifecycle;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Whether the control plane is reconciling its store against runtimes that know newer facts (after
 * a restore of an older store backup). While active, admission is closed and nothing is deleted or
 * released.
 */
public final class RecoveryMode {
  private final AtomicBoolean active = new AtomicBoolean();

  public boolean active() {
    return active.get();
  }

  boolean enter() {
    return active.compareAndSet(false, true);
  }

  void leave() {
    active.set(false);
  }
}
