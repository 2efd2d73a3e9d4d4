package dev.berth.agent.contract;

import dev.berth.core.transition.TransitionTable;

/**
 * The one table of the control lease's moves. Stopping the workload is not a lease phase: it is a
 * one-way latch kept beside the lease in {@link ControlLease}, because a stopped workload still has
 * a lease that the control plane may renew to reopen admission (for example to remove the runtime).
 */
final class LeaseTable {

  enum Phase {
    NONE,
    HELD,
    EXPIRED
  }

  enum Event {
    RENEW,
    EXPIRE
  }

  static final TransitionTable<Phase, Event> TABLE =
      TransitionTable.of("control lease", Phase.class, Event.class)
          .state(
              Phase.NONE,
              "a lease was never granted, so none can expire; only a renewal grants one")
          .on(Event.RENEW, Phase.HELD)
          .state(Phase.HELD, "a held lease is renewed or expires at its expiry time")
          .on(Event.RENEW, Phase.HELD)
          .on(Event.EXPIRE, Phase.EXPIRED)
          .state(Phase.EXPIRED, "an expired lease has already expired; only a renewal reopens it")
          .on(Event.RENEW, Phase.HELD)
          .build();

  private LeaseTable() {}
}
