package dev.berth.server.telemetry;

import dev.berth.core.approval.Approval;
import dev.berth.core.approval.ApprovalId;
import dev.berth.core.approval.ApprovalState;
import dev.berth.core.approval.Approvals;
import dev.berth.core.session.SessionId;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Meter;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The approvals store, counting each approval that ends by how it ended ({@code
 * berth_approval_decisions_total{state="approved"}}, …): an approval ends once, so each is counted
 * once whichever replica ended it.
 */
public final class MeteredApprovals implements Approvals {
  private final Approvals inner;
  private final Meter.MeterProvider<Counter> decisions;

  public MeteredApprovals(Approvals inner, Telemetry telemetry) {
    this.inner = inner;
    this.decisions =
        telemetry.counter(
            "berth.approval.decisions",
            "Approvals of tool calls that ended, by how: approved, rejected, expired, cancelled");
  }

  @Override
  public Approval createIfAbsent(Approval approval) {
    return inner.createIfAbsent(approval);
  }

  @Override
  public Optional<Approval> find(ApprovalId id) {
    return inner.find(id);
  }

  @Override
  public List<Approval> list(SessionId session, Optional<ApprovalState> state) {
    return inner.list(session, state);
  }

  @Override
  public boolean end(Approval ended) {
    boolean stored = inner.end(ended);
    if (stored) {
      decisions.withTag("state", ended.state().wireName()).increment();
    }
    return stored;
  }

  @Override
  public int countPending(SessionId session) {
    return inner.countPending(session);
  }

  @Override
  public List<Approval> pendingExpiredBy(Instant now) {
    return inner.pendingExpiredBy(now);
  }

  @Override
  public List<Approval> waitingAt(Instant now) {
    return inner.waitingAt(now);
  }
}
