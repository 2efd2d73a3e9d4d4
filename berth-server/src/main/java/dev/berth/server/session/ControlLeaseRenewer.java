package dev.berth.server.session;

import dev.berth.core.agent.AgentClient;
import dev.berth.core.agent.AgentCommand;
import dev.berth.core.agent.CommandContext;
import dev.berth.core.lifecycle.ReconcileQueue;
import dev.berth.core.operation.OperationId;
import dev.berth.core.session.Phase;
import dev.berth.core.session.RuntimeRef;
import dev.berth.core.session.Session;
import dev.berth.core.store.SessionQuery;
import dev.berth.core.store.SessionStore;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Renews the control lease of every live runtime (STATE-MODEL §4 "Disconnection"): every third of
 * the lease's time to live, each runtime that should be alive is sent {@link
 * AgentCommand.RenewLease} through the data-plane port, so that its agent — the local node or a
 * session pod's {@code berth agent} — keeps its workload running. When the control plane stops
 * (crashed, partitioned away), the renewals stop and each agent applies its disconnect policy on
 * its own.
 *
 * <p>One replica renews at a time: the one holding the {@value #DUTY} duty, taken and renewed at
 * each round. The duty lives half a lease, so that a replica taking over from a dead holder renews
 * before the leases the dead one granted expire (at most half a lease plus a round after its last
 * renewal).
 *
 * <p>A renewal that fails is lost observation, not a failure: the session is handed to the
 * reconciler, whose pass observes the runtime and, when the agent does not answer, marks it {@code
 * RuntimeObserved=Unknown} with its reservation UNCERTAIN (or finds it gone, or stopped by its
 * host, and says so). Nothing is retried here before the next round.
 *
 * <p>Bounded: at most one renewal per runtime is in flight (a round skips a runtime whose previous
 * renewal still waits on a slow agent), and at most {@code concurrency} run at once.
 */
public final class ControlLeaseRenewer implements AutoCloseable {

  /** The name of the duty the renewing replica holds. */
  public static final String DUTY = "control-lease-renewal";

  /**
   * The phases whose runtime lives and must keep its lease. A runtime still being provisioned or
   * resumed has no lease yet (an agent is not held to a lease it was never granted), so it is left
   * alone until it is ready, rather than be renewed while it may not exist.
   */
  static final Set<Phase> LIVE = EnumSet.of(Phase.READY, Phase.SUSPENDING);

  private static final Logger LOG = LoggerFactory.getLogger(ControlLeaseRenewer.class);
  private static final int PAGE = 200;

  private final SessionStore store;
  private final AgentClient agent;
  private final ReconcileQueue loop;
  private final Duration ttl;
  private final Clock clock;
  private final Set<String> inFlight = ConcurrentHashMap.newKeySet();
  private final ExecutorService renewals;
  private final ScheduledExecutorService timer =
      Executors.newSingleThreadScheduledExecutor(
          r -> Thread.ofPlatform().daemon().name("berth-control-lease").unstarted(r));

  /**
   * @param ttl the lease's time to live; renewed every third of it
   * @param concurrency how many renewals may run at once
   */
  public ControlLeaseRenewer(
      SessionStore store,
      AgentClient agent,
      ReconcileQueue loop,
      Duration ttl,
      int concurrency,
      Clock clock) {
    this.store = Objects.requireNonNull(store, "store");
    this.agent = Objects.requireNonNull(agent, "agent");
    this.loop = Objects.requireNonNull(loop, "loop");
    this.ttl = Objects.requireNonNull(ttl, "ttl");
    this.clock = Objects.requireNonNull(clock, "clock");
    if (concurrency < 1) {
      throw new IllegalArgumentException("concurrency must be >= 1, was " + concurrency);
    }
    this.renewals =
        Executors.newFixedThreadPool(
            concurrency,
            r -> Thread.ofPlatform().daemon().name("berth-control-lease-renewal").unstarted(r));
  }

  /** How often the leases are renewed: a third of their time to live. */
  public Duration period() {
    return ttl.dividedBy(3);
  }

  /**
   * Renews every {@link #period()} until closed, in the rounds {@code duties} gives this replica.
   *
   * @param duties takes and renews the duty; its duty must live half a lease (see {@link #duty})
   */
  public void start(ReplicaDuty duties) {
    long period = period().toMillis();
    var unused =
        timer.scheduleWithFixedDelay(
            () -> {
              // Taking the duty writes to the store: a failure there must not end the schedule.
              try {
                duties.perform(this::round);
              } catch (RuntimeException e) {
                LOG.warn("control lease round failed; the next one retries", e);
              }
            },
            0,
            period,
            TimeUnit.MILLISECONDS);
  }

  /**
   * The duty this renewer performs under, for {@code holder}: checked every sixth of a lease, so
   * that it lives half of one ({@link ReplicaDuty} keeps a duty three periods).
   */
  public ReplicaDuty duty(dev.berth.core.store.Duties duties, String holder) {
    return new ReplicaDuty(duties, DUTY, holder, ttl.dividedBy(6));
  }

  /**
   * One round: sends a renewal to each live runtime that has none in flight.
   *
   * @return how many renewals the round started
   */
  public int round() {
    int[] started = {0};
    store.forEach(
        SessionQuery.all(PAGE).inPhases(LIVE),
        s -> {
          if (s.runtime().isPresent() && renew(s, s.runtime().get())) {
            started[0]++;
          }
        });
    return started[0];
  }

  /** Whether a renewal of {@code runtime} is in flight now. */
  boolean renewing(RuntimeRef runtime) {
    return inFlight.contains(runtime.name());
  }

  private boolean renew(Session s, RuntimeRef runtime) {
    if (!inFlight.add(runtime.name())) {
      return false;
    }
    try {
      renewals.execute(
          () -> {
            try {
              send(s, runtime);
            } finally {
              inFlight.remove(runtime.name());
            }
          });
      return true;
    } catch (RejectedExecutionException e) {
      inFlight.remove(runtime.name());
      return false;
    }
  }

  private void send(Session s, RuntimeRef runtime) {
    Instant now = clock.instant();
    // Unique per renewal: the agent checks the version and the deadline of a renewal, and a
    // renewal that waited longer than a round is superseded by the next one.
    OperationId operation =
        new OperationId("op-" + s.id().value() + "-lease-" + Math.max(0, now.toEpochMilli()));
    var context = new CommandContext(s.id(), s.intent().version(), now.plus(period()), operation);
    try {
      agent.send(runtime, new AgentCommand.RenewLease(context, ttl));
    } catch (RuntimeException e) {
      LOG.warn(
          "could not renew the control lease of runtime {} of session {}; its reconciler"
              + " observes it: {}",
          runtime.name(),
          s.id().value(),
          e.toString());
      loop.enqueue(s.id());
    }
  }

  @Override
  public void close() {
    timer.shutdownNow();
    renewals.shutdownNow();
  }
}
