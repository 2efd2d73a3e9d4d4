package dev.berth.core.testing;

import dev.berth.core.approval.Approval;
import dev.berth.core.approval.ApprovalId;
import dev.berth.core.approval.ApprovalState;
import dev.berth.core.approval.Approvals;
import dev.berth.core.session.SessionId;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/** Approvals in a map: the memory adapter of {@link Approvals}, for tests. Thread-safe. */
public final class InMemoryApprovals implements Approvals {

  /** Newest first; the id breaks ties so the order is total. */
  private static final Comparator<Approval> NEWEST_FIRST =
      Comparator.comparing(Approval::createdAt).reversed().thenComparing(Approval::id);

  private final ConcurrentMap<ApprovalId, Approval> byId = new ConcurrentHashMap<>();

  @Override
  public Approval createIfAbsent(Approval approval) {
    Approval existing = byId.putIfAbsent(approval.id(), approval);
    return existing == null ? approval : existing;
  }

  @Override
  public Optional<Approval> find(ApprovalId id) {
    return Optional.ofNullable(byId.get(id));
  }

  @Override
  public List<Approval> list(SessionId session, Optional<ApprovalState> state) {
    return byId.values().stream()
        .filter(a -> a.session().equals(session))
        .filter(a -> state.map(s -> s == a.state()).orElse(true))
        .sorted(NEWEST_FIRST)
        .toList();
  }

  @Override
  public boolean end(Approval ended) {
    boolean[] stored = {false};
    byId.computeIfPresent(
        ended.id(),
        (id, current) -> {
          if (current.state() != ApprovalState.PENDING) {
            return current;
          }
          stored[0] = true;
          return ended;
        });
    return stored[0];
  }

  @Override
  public int countPending(SessionId session) {
    return list(session, Optional.of(ApprovalState.PENDING)).size();
  }

  @Override
  public List<Approval> pendingExpiredBy(Instant now) {
    return byId.values().stream()
        .filter(a -> a.overdueAt(now))
        .sorted(Comparator.comparing(Approval::expiresAt))
        .toList();
  }

  @Override
  public List<Approval> waitingAt(Instant now) {
    return byId.values().stream()
        .filter(a -> a.waitsAt(now))
        .sorted(Comparator.comparing(Approval::createdAt).thenComparing(Approval::id))
        .toList();
  }
}
