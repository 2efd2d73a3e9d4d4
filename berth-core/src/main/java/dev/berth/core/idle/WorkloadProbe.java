package dev.berth.core.idle;

import dev.berth.core.agent.DataPlane;
import dev.berth.core.agent.RuntimeReport;
import dev.berth.core.session.Phase;
import dev.berth.core.session.Session;
import dev.berth.core.session.SessionId;
import java.time.Instant;
import java.util.Optional;
import java.util.function.Function;

/** Asks a session's agent whether work is in progress, for the idle policy. */
public final class WorkloadProbe {

  private final DataPlane data;
  private final Function<SessionId, Optional<Instant>> approvalPendingUntil;

  public WorkloadProbe(DataPlane data) {
    this(data, session -> Optional.empty());
  }

  /**
   * @param approvalPendingUntil when the last of a session's waiting approvals expires, if one
   *     waits (see {@link dev.berth.core.approval.ReadApprovals#pendingUntil})
   */
  public WorkloadProbe(
      DataPlane data, Function<SessionId, Optional<Instant>> approvalPendingUntil) {
    this.data = data;
    this.approvalPendingUntil = approvalPendingUntil;
  }

  /**
   * What the runtime reports (busy shell, running execution) with the session's own {@code
   * busySince}; empty when the session holds no ready runtime or its agent does not answer, so that
   * nobody mistakes silence for quiet.
   */
  public Optional<WorkloadActivity> probe(Session s) {
    if (s.phase() != Phase.READY || s.runtime().isEmpty()) {
      return Optional.empty();
    }
    try {
      RuntimeReport report = data.report(s.runtime().get());
      return Optional.of(
          new WorkloadActivity(
              report.busy(),
              report.executionRunning(),
              s.activity().busySince(),
              approvalPendingUntil.apply(s.id())));
    } catch (RuntimeException unreachable) {
      return Optional.empty();
    }
  }
}
