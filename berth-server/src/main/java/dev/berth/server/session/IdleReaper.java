package dev.berth.server.session;

import dev.berth.core.access.AccessLog;
import dev.berth.core.access.Settling;
import dev.berth.core.error.NotFoundException;
import dev.berth.core.error.VersionConflictException;
import dev.berth.core.idle.IdleDecision;
import dev.berth.core.idle.IdlePolicy;
import dev.berth.core.idle.WorkloadActivity;
import dev.berth.core.idle.WorkloadProbe;
import dev.berth.core.lifecycle.ReconcileQueue;
import dev.berth.core.lifecycle.SessionIntents;
import dev.berth.core.session.Activity;
import dev.berth.core.session.DesiredState;
import dev.berth.core.session.Phase;
import dev.berth.core.session.Session;
import dev.berth.core.session.SessionId;
import dev.berth.core.store.SessionQuery;
import dev.berth.core.store.SessionStore;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Meter;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies the idle policy: every {@code interval} it looks at each ready session, keeps its {@code
 * busySince} up to date from what the agent reports, and asks for SUSPENDED (as {@link
 * IdlePolicy#ACTOR}) for a session the policy says to suspend. The request is conditional: the
 * policy is decided again on the session as stored at the moment of the write, so an access that
 * landed since the scan read it wins. An access after the write wins too: it turns the intent back
 * to RUNNING and the reconciler aborts the checkpoint ({@link dev.berth.core.access.MakeActive}).
 *
 * <p>A session whose agent does not answer is left alone: silence is not quiet, and a runtime that
 * is gone is the reconciler's to notice.
 */
public final class IdleReaper implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(IdleReaper.class);
  private static final int PAGE = 200;

  private final SessionStore store;
  private final SessionIntents intents;
  private final ReconcileQueue loop;
  private final AccessLog accesses;
  private final WorkloadProbe probe;
  private final IdlePolicy policy;
  private final Clock clock;
  private final ScheduledExecutorService timer =
      Executors.newSingleThreadScheduledExecutor(
          r -> Thread.ofPlatform().daemon().name("berth-idle-reaper").unstarted(r));

  /** {@code berth_idle_decisions_total{decision}}. */
  private final Meter.MeterProvider<Counter> decisions;

  /** The duty the scans run under, once started; given up at close. */
  private volatile Optional<ReplicaDuty> duty = Optional.empty();

  public IdleReaper(
      SessionStore store,
      SessionIntents intents,
      ReconcileQueue loop,
      WorkloadProbe probe,
      IdlePolicy policy,
      AccessLog accesses,
      Clock clock,
      Meter.MeterProvider<Counter> decisions) {
    this.decisions = decisions;
    this.accesses = accesses;
    this.store = store;
    this.intents = intents;
    this.loop = loop;
    this.probe = probe;
    this.policy = policy;
    this.clock = clock;
  }

  /**
   * Scans every {@code interval} until closed, in the turns {@code duty} gives this replica: with
   * several replicas on one store, one at a time probes the agents and decides.
   */
  public void start(Duration interval, ReplicaDuty duty) {
    this.duty = Optional.of(duty);
    var unused =
        timer.scheduleWithFixedDelay(
            () -> {
              // Taking the duty writes to the store: a failure there must not end the schedule
              // (an exception would cancel every later run, silently).
              try {
                duty.perform(this::scan);
              } catch (RuntimeException e) {
                LOG.warn("idle scan failed; the next one retries", e);
              }
            },
            interval.toMillis(),
            interval.toMillis(),
            TimeUnit.MILLISECONDS);
  }

  /** One pass over every ready session. */
  public List<SessionId> scan() {
    // Accesses the log still keeps are written first, so that every decision sees them.
    accesses.flush();
    List<SessionId> suspended = new ArrayList<>();
    store.forEach(
        SessionQuery.all(PAGE).inPhases(Set.of(Phase.READY)),
        s -> {
          try {
            if (consider(s)) {
              suspended.add(s.id());
            }
          } catch (RuntimeException e) {
            // One session's trouble (deleted meanwhile, a store hiccup) must not spare the others.
            LOG.warn("idle check of session {} failed; the next scan retries", s.id(), e);
          }
        });
    return suspended;
  }

  /** Whether {@code s} was asked to suspend. */
  boolean consider(Session s) {
    if (s.intent().desired() != DesiredState.RUNNING) {
      return false;
    }
    Optional<WorkloadActivity> reported = probe.probe(s);
    if (reported.isEmpty()) {
      return false;
    }
    Instant now = clock.instant();
    Session current = keepBusySince(s, reported.get(), now);
    WorkloadActivity workload =
        new WorkloadActivity(
            reported.get().shellBusy(),
            reported.get().executionRunning(),
            current.activity().busySince(),
            reported.get().approvalPendingUntil());
    IdleDecision decision = policy.decide(current, workload, now);
    count(decision);
    if (!(decision instanceof IdleDecision.Suspend)) {
      return false;
    }
    Instant[] basis = {current.activity().lastAccess()};
    boolean asked =
        intents
            .requestIf(
                s.id(),
                DesiredState.SUSPENDED,
                fresh -> {
                  basis[0] = fresh.activity().lastAccess();
                  return policy.decide(fresh, workload, clock.instant())
                      instanceof IdleDecision.Suspend;
                },
                IdlePolicy.ACTOR,
                "no client access since "
                    + current.activity().lastAccess()
                    + " (suspendAfter "
                    + policy.settings().suspendAfter()
                    + ") and nothing holds it")
            .isPresent();
    if (!asked || accessedSince(s.id(), basis[0])) {
      return false;
    }
    LOG.info("idle session {} asked to suspend", s.id());
    loop.enqueue(s.id());
    return true;
  }

  /** {@code berth_idle_decisions_total{decision}}: what each scan decided, session by session. */
  private void count(IdleDecision decision) {
    String name =
        switch (decision) {
          case IdleDecision.NotApplicable n -> "not_applicable";
          case IdleDecision.Active a -> "active";
          case IdleDecision.Idle i -> "idle";
          case IdleDecision.Held h -> "held_" + h.hold().name().toLowerCase(java.util.Locale.ROOT);
          case IdleDecision.Suspend s -> "suspend";
        };
    decisions.withTag("decision", name).increment();
  }

  /**
   * Looks once more after the intent was written: an access counts itself before it reads the
   * session, so one that the write's re-check did not see shows in {@code lastAccess} now, and the
   * suspend is taken back (the access wins).
   */
  private boolean accessedSince(SessionId id, Instant basis) {
    Optional<Session> now = store.get(id);
    if (now.isEmpty() || !now.get().activity().lastAccess().isAfter(basis)) {
      return false;
    }
    intents.requestIf(
        id,
        DesiredState.RUNNING,
        Settling::askedToSuspendByIdlePolicy,
        IdlePolicy.ACTOR,
        "an access at " + now.get().activity().lastAccess() + " won over the idle suspend");
    loop.enqueue(id);
    return true;
  }

  /**
   * Starts {@code busySince} when the runtime is first seen busy and clears it when it is seen
   * quiet, so that busy work holds a session at most {@code maxBusy} from when it began.
   */
  private Session keepBusySince(Session s, WorkloadActivity reported, Instant now) {
    // A waiting approval counts: the agent's turn is held, and maxBusy bounds it like other work.
    boolean busy = reported.busyAt(now);
    Activity a = s.activity();
    if (busy == a.busySince().isPresent()) {
      return s;
    }
    Activity next = a.busySince(busy ? Optional.of(now) : Optional.empty());
    try {
      return store.compareAndSet(s.withActivity(next), s.version());
    } catch (VersionConflictException | NotFoundException e) {
      // Someone else changed the session since the scan read it; the next scan sees it anew.
      return s;
    }
  }

  /**
   * Stops scanning and gives the duty up, so that another replica scans at its next turn instead of
   * waiting out the duty's time to live. A scan in flight is let finish first (a little while), or
   * it would take the duty again right after.
   */
  @Override
  public void close() {
    timer.shutdownNow();
    try {
      if (!timer.awaitTermination(10, TimeUnit.SECONDS)) {
        LOG.warn("an idle scan did not stop within 10 s; its duty is left to expire");
        return;
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return;
    }
    try {
      duty.ifPresent(ReplicaDuty::release);
    } catch (RuntimeException e) {
      // The duty then expires after its time to live, as a killed replica's does.
      LOG.warn("could not give the idle-scan duty up; another replica takes it once it expires", e);
    }
  }
}
