package dev.berth.core.lifecycle;

/**
 * Named points in the lifecycle protocols where tests can make the process "crash". In production
 * this is {@link #NONE}; a test passes an implementation that throws at a chosen point, and the
 * protocol must recover from there after a restart.
 */
@FunctionalInterface
public interface Failpoints {

  Failpoints NONE = name -> {};

  /** Called when the protocol reaches {@code name}; may throw to simulate a crash. */
  void reach(String name);
}
