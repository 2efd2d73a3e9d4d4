package dev.berth.server;

import dev.berth.core.agent.AgentClient;
import dev.berth.core.lifecycle.ReconcileQueue;
import dev.berth.server.session.ControlLeaseRenewer;
import java.time.Clock;
import java.util.List;

/** Starts the renewal of the runtimes' control leases, as {@link BerthServer} wires it. */
final class ControlLeases {

  private ControlLeases() {}

  /**
   * Renews every live runtime's lease through {@code agent} (the data-plane port, the same for the
   * local node and session pods) while this replica holds the renewal duty; the renewer is added to
   * the front of {@code resources}, to be closed before what it uses.
   */
  static ControlLeaseRenewer start(
      ControlLeaseSettings settings,
      ServerBackends backends,
      AgentClient agent,
      ReconcileQueue loop,
      Clock clock,
      List<AutoCloseable> resources) {
    ControlLeaseRenewer renewer =
        new ControlLeaseRenewer(
            backends.store(), agent, loop, settings.ttl(), settings.concurrency(), clock);
    resources.add(0, renewer);
    renewer.start(renewer.duty(backends.duties(), backends.holder()));
    return renewer;
  }
}
