package dev.berth.core.lifecycle;

import dev.berth.core.agent.AgentClient;
import dev.berth.core.agent.AgentStatus;
import dev.berth.core.error.AgentUnreachableException;
import dev.berth.core.operation.Operation;
import dev.berth.core.operation.OperationId;
import dev.berth.core.operation.OperationType;
import dev.berth.core.operation.StepName;
import dev.berth.core.runtime.Runtime;
import dev.berth.core.runtime.RuntimeListing;
import dev.berth.core.session.DesiredState;
import dev.berth.core.session.Intent;
import dev.berth.core.session.Session;
import dev.berth.core.store.AuditEvent;
import dev.berth.core.store.Lease;
import dev.berth.core.store.Page;
import dev.berth.core.store.SessionQuery;
import dev.berth.core.store.SessionStore;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Reconciles the store with the runtimes after the store may have been restored from an older
 * backup. Runtimes report the newest intent they accepted; where that is newer than the store's,
 * the session adopts it (a tombstone makes it TERMINATED). Runtime objects without a matching
 * session record are quarantined: reported, never deleted. While this runs, {@link RecoveryMode} is
 * on: reconcilers do nothing, so nothing is deleted and no quota is released.
 */
public final class StoreRecovery {
  private static final int PAGE = 200;

  private final SessionStore store;
  private final Runtime runtime;
  private final AgentClient agent;
  private final InstantSource clock;
  private final LifecycleSettings settings;
  private final RecoveryMode mode;

  public StoreRecovery(
      SessionStore store,
      Runtime runtime,
      AgentClient agent,
      InstantSource clock,
      LifecycleSettings settings,
      RecoveryMode mode) {
    this.store = store;
    this.runtime = runtime;
    this.agent = agent;
    this.clock = clock;
    this.settings = settings;
    this.mode = mode;
  }

  /** Runs one recovery over every session and runtime; recovery mode is on meanwhile. */
  public RecoveryReport run() {
    if (!mode.enter()) {
      throw new IllegalStateException("store recovery is already running; wait for it to end");
    }
    try {
      List<String> adopted = new ArrayList<>();
      List<String> unreachable = new ArrayList<>();
      List<String> quarantined = quarantineUnknownRuntimes();
      SessionQuery query = SessionQuery.all(PAGE);
      while (true) {
        Page<Session> page = store.list(query);
        for (Session s : page.items()) {
          adoptNewerIntent(s, adopted, unreachable);
        }
        if (page.nextPageToken().isEmpty()) {
          return new RecoveryReport(adopted, quarantined, unreachable);
        }
        query = query.after(page.nextPageToken().get());
      }
    } finally {
      mode.leave();
    }
  }

  private List<String> quarantineUnknownRuntimes() {
    List<String> quarantined = new ArrayList<>();
    for (RuntimeListing listing : runtime.list()) {
      if (!listing.labels().installation().equals(settings.installation())) {
        continue;
      }
      Optional<Session> owner = store.get(listing.labels().session());
      boolean known =
          owner.flatMap(Session::runtime).map(r -> r.name().equals(listing.name())).orElse(false);
      if (!known) {
        quarantined.add(listing.name());
        store.append(
            AuditEvent.of(
                listing.labels().session(),
                now(),
                settings.holder(),
                "runtime.quarantined",
                listing.name()
                    + (owner.isEmpty()
                        ? ": no session record (the store may be older than the runtime)"
                        : ": not the session's recorded runtime")));
      }
    }
    return quarantined;
  }

  private void adoptNewerIntent(Session s, List<String> adopted, List<String> unreachable) {
    if (s.runtime().isEmpty()) {
      return;
    }
    AgentStatus status;
    try {
      status = agent.status(s.runtime().get());
    } catch (AgentUnreachableException | dev.berth.core.error.NotFoundException e) {
      // Unreachable, or its runtime is gone (removed after the backup was taken): nothing to adopt
      // from it now; it is listed, and reconciled once a person ended recovery mode.
      unreachable.add(s.id().value());
      return;
    }
    if (status.acceptedIntentVersion() <= s.intent().version()) {
      return;
    }
    Optional<Lease> lease = store.leases().acquire(s.id(), settings.holder(), settings.leaseTtl());
    if (lease.isEmpty()) {
      unreachable.add(s.id().value());
      return;
    }
    try {
      adopt(s, status, lease.get());
      adopted.add(s.id().value());
    } finally {
      store.leases().release(lease.get());
    }
  }

  private void adopt(Session s, AgentStatus status, Lease lease) {
    DesiredState desired = status.tombstoned() ? DesiredState.TERMINATED : status.acceptedDesired();
    Intent newer =
        new Intent(
            desired,
            status.acceptedIntentVersion(),
            now(),
            "recovery",
            "adopted from runtime "
                + s.runtime().orElseThrow().name()
                + ", which accepted a newer intent than the store holds");
    Operation op =
        store.createOperation(
            Operation.pending(
                OperationId.of(s.id(), OperationType.RECOVER, status.acceptedIntentVersion()),
                s.id(),
                OperationType.RECOVER,
                newer.version(),
                now(),
                now().plus(settings.operationTimeout())));
    op = store.updateOperation(op.attempt(), op.version(), lease.token());
    op =
        store.updateOperation(
            op.step(StepName.ADOPT_RUNTIME_INTENT, desired + " v" + newer.version(), now()),
            op.version(),
            lease.token());
    store.compareAndSet(s.adoptIntent(newer), s.version(), lease.token());
    store.updateOperation(op.succeed(now()), op.version(), lease.token());
    store.append(
        AuditEvent.of(
            s.id(),
            now(),
            settings.holder(),
            "session.intent.adopted",
            desired + " v" + newer.version()));
  }

  private Instant now() {
    return clock.instant();
  }
}
