package dev.berth.server.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.berth.core.agent.AgentClient;
import dev.berth.core.agent.AgentCommand;
import dev.berth.core.agent.AgentReply;
import dev.berth.core.agent.AgentStatus;
import dev.berth.core.error.AgentUnreachableException;
import dev.berth.core.session.Phase;
import dev.berth.core.session.RuntimeRef;
import dev.berth.core.session.Session;
import dev.berth.core.session.SessionId;
import dev.berth.core.store.Duties;
import dev.berth.core.testing.InMemorySessionStore;
import dev.berth.core.testing.MutableClock;
import dev.berth.core.testing.TestSessions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The control lease renewer over a store of sessions and an agent the test plays: what it renews,
 * with what, how much at once, and what a failed renewal leads to.
 */
class ControlLeaseRenewerTest {

  private static final Duration TTL = Duration.ofSeconds(60);

  private final MutableClock clock = MutableClock.at("2026-12-06T00:00:00Z");
  private final InMemorySessionStore store = new InMemorySessionStore(clock);
  private final ConcurrentLinkedQueue<SessionId> enqueued = new ConcurrentLinkedQueue<>();
  private final Agent agent = new Agent();
  private ControlLeaseRenewer renewer = renewer(4);

  @AfterEach
  void close() {
    agent.release.countDown();
    renewer.close();
  }

  @Test
  void aRoundRenewsEachLiveRuntimeWithTheLeaseTtlTheSessionsIntentVersionAndAThirdAsDeadline() {
    Session a = store.create(TestSessions.ready(clock.instant()));
    Session b = store.create(TestSessions.ready(clock.instant()));
    store.create(TestSessions.requested(clock.instant()));

    assertThat(renewer.round()).isEqualTo(2);

    await().atMost(Duration.ofSeconds(5)).until(() -> agent.sent.size() == 2);
    assertThat(agent.sent)
        .extracting(s -> s.runtime)
        .containsExactlyInAnyOrder(a.runtime().orElseThrow(), b.runtime().orElseThrow());
    for (Sent s : agent.sent) {
      assertThat(s.command.ttl()).isEqualTo(TTL);
      assertThat(s.command.context().intentVersion())
          .isEqualTo(store.get(s.command.context().session()).orElseThrow().intent().version());
      assertThat(s.command.context().deadline()).isEqualTo(clock.instant().plus(TTL.dividedBy(3)));
      assertThat(s.command.context().operation().value()).contains("-lease-");
    }
    assertThat(renewer.period()).isEqualTo(Duration.ofSeconds(20));
    assertThat(enqueued).isEmpty();
  }

  @Test
  void sessionsWithoutALiveRuntimeAreNotRenewed() {
    Session failed =
        TestSessions.ready(clock.instant())
            .fail(
                new dev.berth.core.session.Failure(
                    dev.berth.core.session.FailureReason.RUNTIME_HEALTH, "stopped"));
    store.create(failed);
    store.create(TestSessions.requested(clock.instant()));

    assertThat(failed.phase()).isEqualTo(Phase.FAILED);
    assertThat(renewer.round()).isZero();
  }

  @Test
  void aRuntimeWhoseRenewalStillWaitsIsNotSentAnotherUntilItEnds() {
    Session s = store.create(TestSessions.ready(clock.instant()));
    RuntimeRef runtime = s.runtime().orElseThrow();
    agent.hold();

    assertThat(renewer.round()).isEqualTo(1);
    await().atMost(Duration.ofSeconds(5)).until(() -> agent.waiting.get() == 1);
    assertThat(renewer.round()).as("the first renewal still waits on the agent").isZero();
    assertThat(renewer.renewing(runtime)).isTrue();

    agent.release.countDown();
    await().atMost(Duration.ofSeconds(5)).until(() -> !renewer.renewing(runtime));
    assertThat(renewer.round()).isEqualTo(1);
    await().atMost(Duration.ofSeconds(5)).until(() -> agent.sent.size() == 2);
  }

  @Test
  void atMostTheConfiguredNumberOfRenewalsRunAtOnce() {
    renewer.close();
    renewer = renewer(2);
    for (int i = 0; i < 6; i++) {
      store.create(TestSessions.ready(clock.instant()));
    }
    agent.hold();

    assertThat(renewer.round()).isEqualTo(6);
    await().atMost(Duration.ofSeconds(5)).until(() -> agent.waiting.get() == 2);
    // The others wait for a free slot, not for the agent.
    await().pollDelay(Duration.ofMillis(300)).atMost(Duration.ofSeconds(5)).until(() -> true);
    assertThat(agent.waiting.get()).isEqualTo(2);

    agent.release.countDown();
    await().atMost(Duration.ofSeconds(5)).until(() -> agent.sent.size() == 6);
    assertThat(agent.mostAtOnce.get()).isEqualTo(2);
  }

  @Test
  void aFailedRenewalHandsTheSessionToTheReconcilerAndChangesNothingItself() {
    Session s = store.create(TestSessions.ready(clock.instant()));
    agent.unreachable = true;

    renewer.round();

    await().atMost(Duration.ofSeconds(5)).until(() -> enqueued.contains(s.id()));
    Session after = store.get(s.id()).orElseThrow();
    assertThat(after.phase()).isEqualTo(Phase.READY);
    assertThat(after.version()).isEqualTo(s.version());
    await().atMost(Duration.ofSeconds(5)).until(() -> !renewer.renewing(s.runtime().orElseThrow()));
    assertThat(renewer.round()).as("the next round tries again").isEqualTo(1);
  }

  @Test
  void onlyTheReplicaHoldingTheDutyRenewsAndTheDutyLivesHalfALease() {
    store.create(TestSessions.ready(clock.instant()));
    List<Duration> ttls = new ArrayList<>();
    ReplicaDuty mine =
        renewer.duty(
            held(
                (duty, holder, ttl) -> {
                  ttls.add(ttl);
                  return holder.equals("replica-a");
                }),
            "replica-a");
    ReplicaDuty other =
        renewer.duty(held((duty, holder, ttl) -> holder.equals("replica-a")), "replica-b");

    assertThat(other.perform(renewer::round)).isFalse();
    assertThat(agent.sent).isEmpty();
    assertThat(mine.perform(renewer::round)).isTrue();

    await().atMost(Duration.ofSeconds(5)).until(() -> agent.sent.size() == 1);
    assertThat(ttls).containsExactly(TTL.dividedBy(2));
  }

  @Test
  void startedItRenewsEveryThirdOfTheLease() throws InterruptedException {
    renewer.close();
    renewer =
        new ControlLeaseRenewer(store, agent, enqueued::add, Duration.ofMillis(300), 2, clock);
    store.create(TestSessions.ready(clock.instant()));

    renewer.start(renewer.duty(held((duty, holder, ttl) -> true), "replica-a"));

    await().atMost(Duration.ofSeconds(5)).until(() -> agent.sent.size() >= 4);
  }

  private ControlLeaseRenewer renewer(int concurrency) {
    return new ControlLeaseRenewer(store, agent, enqueued::add, TTL, concurrency, clock);
  }

  private record Sent(RuntimeRef runtime, AgentCommand.RenewLease command) {}

  /** The agents of every runtime: records renewals, may hold them or be unreachable. */
  private static final class Agent implements AgentClient {
    final ConcurrentLinkedQueue<Sent> sent = new ConcurrentLinkedQueue<>();
    final AtomicInteger waiting = new AtomicInteger();
    final AtomicInteger mostAtOnce = new AtomicInteger();
    volatile CountDownLatch release = new CountDownLatch(0);
    volatile boolean unreachable;

    void hold() {
      release = new CountDownLatch(1);
    }

    @Override
    public AgentStatus status(RuntimeRef runtime) {
      throw new UnsupportedOperationException("the renewer asks no status");
    }

    @Override
    public AgentReply send(RuntimeRef runtime, AgentCommand command) {
      if (unreachable) {
        throw new AgentUnreachableException("agent of " + runtime.name(), "connection refused");
      }
      int now = waiting.incrementAndGet();
      mostAtOnce.accumulateAndGet(now, Math::max);
      try {
        if (!release.await(10, TimeUnit.SECONDS)) {
          throw new AgentUnreachableException("agent of " + runtime.name(), "timed out");
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AgentUnreachableException("agent of " + runtime.name(), "interrupted");
      } finally {
        waiting.decrementAndGet();
      }
      sent.add(new Sent(runtime, (AgentCommand.RenewLease) command));
      return new AgentReply.Accepted();
    }
  }

  /** How a stand-in duty answers {@link Duties#hold}. */
  @FunctionalInterface
  interface Hold {
    boolean hold(String duty, String holder, Duration ttl);
  }

  /** A stand-in for the store's duties that answers as {@code hold} says and releases nothing. */
  private static Duties held(Hold hold) {
    return new Duties() {
      @Override
      public boolean hold(String duty, String holder, Duration ttl) {
        return hold.hold(duty, holder, ttl);
      }

      @Override
      public void release(String duty, String holder) {}
    };
  }
}
