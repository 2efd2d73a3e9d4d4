package dev.berth.core.access;

import dev.berth.core.idle.IdleDecision;
import dev.berth.core.idle.IdlePolicy;
import dev.berth.core.idle.WorkloadActivity;
import dev.berth.core.idle.WorkloadProbe;
import dev.berth.core.session.Session;
import dev.berth.core.session.SessionId;
import dev.berth.core.store.SessionStore;
import java.time.InstantSource;

/** Explains what the idle policy would decide for a session now; passive (never touches). */
public final class ExplainIdle {

  /** The decision, and whether suspension is enabled at all. */
  public record IdleView(Session session, IdleDecision decision, boolean suspendEnabled) {}

  private final SessionLookup lookup;
  private final IdlePolicy policy;
  private final WorkloadProbe probe;
  private final InstantSource clock;
  private final boolean suspendEnabled;

  public ExplainIdle(
      SessionStore store,
      IdlePolicy policy,
      WorkloadProbe probe,
      InstantSource clock,
      boolean suspendEnabled) {
    this.lookup = new SessionLookup(store, clock);
    this.policy = policy;
    this.probe = probe;
    this.clock = clock;
    this.suspendEnabled = suspendEnabled;
  }

  public IdleView explain(Scope scope, SessionId id) {
    Session s = lookup.get(scope, id);
    // Without the agent's word the explanation assumes nothing runs (the reaper then does not act).
    WorkloadActivity workload = probe.probe(s).orElse(WorkloadActivity.quiet());
    return new IdleView(s, policy.decide(s, workload, clock.instant()), suspendEnabled);
  }
}
