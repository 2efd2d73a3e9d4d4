package dev.berth.core.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.berth.core.error.AlreadyExistsException;
import dev.berth.core.error.NotFoundException;
import dev.berth.core.error.StaleFenceException;
import dev.berth.core.error.VersionConflictException;
import dev.berth.core.execution.Execution;
import dev.berth.core.execution.ExecutionId;
import dev.berth.core.execution.ExecutionKind;
import dev.berth.core.execution.ExecutionState;
import dev.berth.core.operation.Operation;
import dev.berth.core.operation.OperationId;
import dev.berth.core.operation.OperationState;
import dev.berth.core.operation.OperationType;
import dev.berth.core.operation.StepName;
import dev.berth.core.session.DesiredState;
import dev.berth.core.session.Phase;
import dev.berth.core.session.Session;
import dev.berth.core.session.SessionId;
import dev.berth.core.session.TenantId;
import dev.berth.core.testing.MutableClock;
import dev.berth.core.testing.TestSessions;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The contract every {@link SessionStore} adapter must pass, unchanged: an adapter's test extends
 * this class and only says how to build its store. Concurrency cases use real threads.
 */
public abstract class SessionStoreContract {
  private static final Duration TTL = Duration.ofSeconds(60);

  protected MutableClock clock;
  protected SessionStore store;
  private ExecutorService pool;

  /** A fresh, empty store that judges lease expiry by {@code clock}. */
  protected abstract SessionStore newStore(MutableClock clock) throws Exception;

  /** Frees what {@link #newStore} allocated. */
  protected void closeStore(SessionStore s) throws Exception {}

  @BeforeEach
  void setUpStore() throws Exception {
    clock = MutableClock.at("2026-11-29T10:00:00Z");
    store = newStore(clock);
    pool = Executors.newFixedThreadPool(8);
  }

  @AfterEach
  void tearDownStore() throws Exception {
    pool.shutdownNow();
    closeStore(store);
  }

  private Session stored() {
    return store.create(TestSessions.requested(clock.instant()));
  }

  // ---- sessions -------------------------------------------------------------------------------

  @Test
  void createsASessionAtVersionOneAndReadsItBack() {
    Session created = stored();
    assertThat(created.version()).isEqualTo(1);
    assertThat(store.get(created.id())).contains(created);
  }

  @Test
  void roundTripsEveryFieldOfASession() {
    Session rich = TestSessions.everyField(clock.instant());
    Session created = store.create(rich);
    assertThat(store.get(rich.id())).contains(rich.withVersion(1)).contains(created);
  }

  @Test
  void rejectsASecondSessionWithTheSameId() {
    Session created = stored();
    assertThatThrownBy(() -> store.create(created.withVersion(0)))
        .isInstanceOf(AlreadyExistsException.class)
        .hasMessageContaining(created.id().value());
  }

  @Test
  void answersEmptyForAnUnknownSession() {
    assertThat(store.get(TestSessions.newId())).isEmpty();
    assertThat(store.touch(TestSessions.newId(), clock.instant())).isFalse();
  }

  @Test
  void compareAndSetBumpsTheVersionAndRejectsAStaleOne() {
    Session s = stored();
    Session next = s.withIntent(DesiredState.SUSPENDED, clock.instant(), "t", "test");
    Session written = store.compareAndSet(next, 1);
    assertThat(written.version()).isEqualTo(2);
    assertThat(store.get(s.id()).orElseThrow().intent().desired())
        .isEqualTo(DesiredState.SUSPENDED);
    assertThatThrownBy(
            () ->
                store.compareAndSet(
                    s.withIntent(DesiredState.TERMINATED, clock.instant(), "t", "test"), 1))
        .isInstanceOf(VersionConflictException.class)
        .hasMessageContaining("expected version 1")
        .hasMessageContaining("holds version 2");
    assertThat(store.get(s.id()).orElseThrow()).isEqualTo(written);
  }

  @Test
  void compareAndSetOfAMissingSessionIsNotFound() {
    Session never = TestSessions.requested(clock.instant());
    assertThatThrownBy(() -> store.compareAndSet(never, 0)).isInstanceOf(NotFoundException.class);
  }

  @Test
  void exactlyOneOfEightConcurrentWritersWinsEachRoundOfAHundred() throws Exception {
    for (int round = 0; round < 100; round++) {
      Session s = stored();
      CountDownLatch start = new CountDownLatch(1);
      AtomicInteger wins = new AtomicInteger();
      AtomicInteger conflicts = new AtomicInteger();
      List<Future<?>> writers = new ArrayList<>();
      for (int w = 0; w < 8; w++) {
        String writer = "writer-" + w;
        writers.add(
            pool.submit(
                () -> {
                  start.await();
                  try {
                    store.compareAndSet(
                        s.withIntent(DesiredState.SUSPENDED, clock.instant(), writer, "race"),
                        s.version());
                    wins.incrementAndGet();
                  } catch (VersionConflictException e) {
                    conflicts.incrementAndGet();
                  }
                  return null;
                }));
      }
      start.countDown();
      for (Future<?> f : writers) {
        f.get();
      }
      assertThat(wins.get()).as("winners in round %d", round).isEqualTo(1);
      assertThat(conflicts.get()).as("losers in round %d", round).isEqualTo(7);
      assertThat(store.get(s.id()).orElseThrow().version()).isEqualTo(2);
    }
  }

  @Test
  void touchMovesLastAccessForwardOnlyWithoutChangingTheVersion() {
    Session s = stored();
    Instant later = clock.instant().plusSeconds(30);
    assertThat(store.touch(s.id(), later)).isTrue();
    assertThat(store.touch(s.id(), clock.instant().plusSeconds(10))).isTrue();
    Session read = store.get(s.id()).orElseThrow();
    assertThat(read.activity().lastAccess()).isEqualTo(later);
    assertThat(read.version()).isEqualTo(1);
  }

  @Test
  void compareAndSetNeverMovesLastAccessBackwards() {
    Session s = stored();
    Instant touched = clock.instant().plusSeconds(99);
    store.touch(s.id(), touched);
    Session written =
        store.compareAndSet(
            s.withIntent(DesiredState.SUSPENDED, clock.instant(), "t", "stale read"), 1);
    assertThat(written.activity().lastAccess()).isEqualTo(touched);
    assertThat(store.get(s.id()).orElseThrow().activity().lastAccess()).isEqualTo(touched);
  }

  @Test
  void touchMergesTheNewestLastAccessUnderConcurrentCompareAndSet() throws Exception {
    Session s = stored();
    Instant base = clock.instant();
    CountDownLatch start = new CountDownLatch(1);
    List<Future<?>> work = new ArrayList<>();
    for (int t = 0; t < 4; t++) {
      int offset = t;
      work.add(
          pool.submit(
              () -> {
                start.await();
                for (int i = 1; i <= 50; i++) {
                  store.touch(s.id(), base.plusMillis(i * 4L + offset));
                }
                return null;
              }));
    }
    for (int w = 0; w < 4; w++) {
      work.add(
          pool.submit(
              () -> {
                start.await();
                for (int i = 0; i < 50; i++) {
                  Session read = store.get(s.id()).orElseThrow();
                  try {
                    store.compareAndSet(read.withActivity(read.activity()), read.version());
                  } catch (VersionConflictException expected) {
                    // Losing a race is fine here; the point is that touches are never lost.
                  }
                }
                return null;
              }));
    }
    start.countDown();
    for (Future<?> f : work) {
      f.get();
    }
    assertThat(store.get(s.id()).orElseThrow().activity().lastAccess())
        .isEqualTo(base.plusMillis(50 * 4L + 3));
  }

  // ---- leases and fencing ---------------------------------------------------------------------

  @Test
  void aLiveLeaseExcludesOtherHoldersUntilItExpiresByTheInjectedClock() {
    SessionId id = stored().id();
    Lease first = store.leases().acquire(id, "a", TTL).orElseThrow();
    assertThat(store.leases().acquire(id, "b", TTL)).isEmpty();
    clock.advance(TTL.minusSeconds(1));
    assertThat(store.leases().acquire(id, "b", TTL)).isEmpty();
    clock.advance(Duration.ofSeconds(1));
    Lease second = store.leases().acquire(id, "b", TTL).orElseThrow();
    assertThat(second.token()).isGreaterThan(first.token());
    assertThat(store.leases().current(id)).contains(second);
  }

  @Test
  void theHolderReacquiringItsLiveLeaseKeepsItsToken() {
    SessionId id = stored().id();
    Lease first = store.leases().acquire(id, "a", TTL).orElseThrow();
    clock.advance(Duration.ofSeconds(10));
    Lease again = store.leases().acquire(id, "a", TTL).orElseThrow();
    assertThat(again.token()).isEqualTo(first.token());
    assertThat(again.expiresAt()).isEqualTo(clock.instant().plus(TTL));
  }

  @Test
  void renewExtendsALiveLease() {
    SessionId id = stored().id();
    Lease lease = store.leases().acquire(id, "a", TTL).orElseThrow();
    clock.advance(Duration.ofSeconds(50));
    Lease renewed = store.leases().renew(lease, TTL);
    assertThat(renewed.token()).isEqualTo(lease.token());
    clock.advance(Duration.ofSeconds(50));
    assertThat(store.leases().acquire(id, "b", TTL)).isEmpty();
  }

  @Test
  void fencingRejectsAStaleHolderAfterTakeover() {
    Session s = stored();
    Lease old = store.leases().acquire(s.id(), "a", TTL).orElseThrow();
    Session written =
        store.compareAndSet(
            s.withIntent(DesiredState.SUSPENDED, clock.instant(), "a", "fenced"), 1, old.token());
    clock.advance(TTL);
    Lease taker = store.leases().acquire(s.id(), "b", TTL).orElseThrow();

    assertThatThrownBy(
            () ->
                store.compareAndSet(
                    written.withIntent(DesiredState.RUNNING, clock.instant(), "a", "late"),
                    2,
                    old.token()))
        .isInstanceOf(StaleFenceException.class)
        .hasMessageContaining("token " + old.token().value());
    assertThatThrownBy(() -> store.leases().renew(old, TTL))
        .isInstanceOf(StaleFenceException.class);
    assertThat(store.get(s.id()).orElseThrow()).isEqualTo(written);

    Session byTaker =
        store.compareAndSet(
            written.withIntent(DesiredState.TERMINATED, clock.instant(), "b", "new holder"),
            2,
            taker.token());
    assertThat(byTaker.version()).isEqualTo(3);
  }

  @Test
  void renewingAnExpiredLeaseFailsEvenWithoutTakeover() {
    SessionId id = stored().id();
    Lease lease = store.leases().acquire(id, "a", TTL).orElseThrow();
    clock.advance(TTL.plusSeconds(1));
    assertThatThrownBy(() -> store.leases().renew(lease, TTL))
        .isInstanceOf(StaleFenceException.class);
  }

  @Test
  void releaseFreesTheLeaseAndNeverReusesItsToken() {
    SessionId id = stored().id();
    Lease first = store.leases().acquire(id, "a", TTL).orElseThrow();
    store.leases().release(first);
    store.leases().release(first);
    assertThat(store.leases().current(id)).isEmpty();
    Lease second = store.leases().acquire(id, "b", TTL).orElseThrow();
    assertThat(second.token()).isGreaterThan(first.token());
    store.leases().release(first);
    assertThat(store.leases().current(id)).contains(second);
  }

  @Test
  void exactlyOneOfEightConcurrentAcquirersGetsTheLease() throws Exception {
    for (int round = 0; round < 20; round++) {
      SessionId id = stored().id();
      CountDownLatch start = new CountDownLatch(1);
      List<Future<Optional<Lease>>> tries = new ArrayList<>();
      for (int w = 0; w < 8; w++) {
        String holder = "holder-" + w;
        tries.add(
            pool.submit(
                () -> {
                  start.await();
                  return store.leases().acquire(id, holder, TTL);
                }));
      }
      start.countDown();
      int holders = 0;
      for (Future<Optional<Lease>> f : tries) {
        holders += f.get().isPresent() ? 1 : 0;
      }
      assertThat(holders).as("holders in round %d", round).isEqualTo(1);
    }
  }

  // ---- listing and paging ---------------------------------------------------------------------

  @Test
  void pagesThroughEverySessionOnceInCreationOrder() {
    List<SessionId> created = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      created.add(stored().id());
      clock.advance(Duration.ofMillis(1));
    }
    assertThat(collect(SessionQuery.all(3), List.of())).containsExactlyElementsOf(created);
  }

  @Test
  void aDeletedSessionIsListedOnlyWhenDeletedOnesAreAskedForAndAlwaysByTheControlPlane() {
    Session kept = stored();
    clock.advance(Duration.ofMillis(1));
    Session gone = stored();
    store.compareAndSet(
        gone.withIntent(DesiredState.TERMINATED, clock.instant(), "t", "deleted"), gone.version());

    assertThat(collect(SessionQuery.all(10).withDeleted(SessionQuery.Deleted.EXCLUDED), List.of()))
        .containsExactly(kept.id());
    assertThat(collect(SessionQuery.all(10).withDeleted(SessionQuery.Deleted.ONLY), List.of()))
        .containsExactly(gone.id());
    assertThat(collect(SessionQuery.all(10), List.of())).containsExactly(kept.id(), gone.id());
    assertThat(store.get(gone.id()).orElseThrow().deletedAt()).isPresent();
  }

  @Test
  void forEachVisitsEverySelectedSessionOnceAcrossPages() {
    List<SessionId> created = new ArrayList<>();
    for (int i = 0; i < 7; i++) {
      created.add(stored().id());
      clock.advance(Duration.ofMillis(1));
    }
    List<SessionId> visited = new ArrayList<>();

    store.forEach(SessionQuery.all(3), s -> visited.add(s.id()));

    assertThat(visited).containsExactlyElementsOf(created);
  }

  @Test
  void pagingIsStableWhileSessionsAreCreatedAndChangedBetweenPages() {
    List<SessionId> before = new ArrayList<>();
    for (int i = 0; i < 9; i++) {
      before.add(stored().id());
    }
    List<SessionId> seen = new ArrayList<>();
    SessionQuery query = SessionQuery.all(4);
    int page = 0;
    while (true) {
      Page<Session> p = store.list(query);
      p.items().forEach(s -> seen.add(s.id()));
      for (Session s : p.items()) {
        store.compareAndSet(
            s.withIntent(DesiredState.SUSPENDED, clock.instant(), "t", "x"), s.version());
      }
      stored();
      page++;
      if (p.nextPageToken().isEmpty() || page > 20) {
        break;
      }
      query = query.after(p.nextPageToken().get());
    }
    assertThat(seen).containsAll(before);
    assertThat(new HashSet<>(seen)).hasSameSizeAs(seen);
  }

  @Test
  void filtersByTenantAndPhase() {
    TenantId acme = new TenantId("acme");
    TenantId other = new TenantId("other");
    Session a = store.create(TestSessions.requested(acme, clock.instant()));
    Session b = store.create(TestSessions.requested(other, clock.instant()));
    store.compareAndSet(b.startProvision("sim", clock.instant()), 1);
    assertThat(ids(store.list(SessionQuery.all(10).forTenant(acme)))).containsExactly(a.id());
    assertThat(ids(store.list(SessionQuery.all(10).inPhases(Set.of(Phase.PROVISIONING)))))
        .containsExactly(b.id());
    assertThat(
            ids(
                store.list(
                    SessionQuery.all(10).forTenant(acme).inPhases(Set.of(Phase.PROVISIONING)))))
        .isEmpty();
  }

  private List<SessionId> collect(SessionQuery query, List<SessionId> acc) {
    Page<Session> page = store.list(query);
    List<SessionId> all = new ArrayList<>(acc);
    all.addAll(ids(page));
    assertThat(page.items().size()).isLessThanOrEqualTo(query.limit());
    return page.nextPageToken().map(t -> collect(query.after(t), all)).orElse(all);
  }

  private static List<SessionId> ids(Page<Session> page) {
    return page.items().stream().map(Session::id).toList();
  }

  // ---- operations, executions, audit ----------------------------------------------------------

  private Operation pendingOp(Session s, OperationType type, long n) {
    return Operation.pending(
        OperationId.of(s.id(), type, n),
        s.id(),
        type,
        n,
        clock.instant(),
        clock.instant().plusSeconds(600));
  }

  @Test
  void createOperationIsIdempotentById() {
    Session s = stored();
    Operation first = store.createOperation(pendingOp(s, OperationType.TERMINATE, 2));
    Operation again = store.createOperation(pendingOp(s, OperationType.TERMINATE, 2).attempt());
    assertThat(again).isEqualTo(first);
    assertThat(first.version()).isEqualTo(1);
    assertThat(store.listOperations(s.id())).containsExactly(first);
  }

  @Test
  void updatesOperationsByCompareAndSetUnderTheCurrentFence() {
    Session s = stored();
    Lease lease = store.leases().acquire(s.id(), "a", TTL).orElseThrow();
    Operation op = store.createOperation(pendingOp(s, OperationType.SUSPEND, 2));
    Operation running =
        store.updateOperation(
            op.attempt()
                .withGeneration(3)
                .step(StepName.PREPARING, "generation 3", clock.instant()),
            1,
            lease.token());
    assertThat(store.getOperation(op.id())).contains(running);
    assertThat(running.version()).isEqualTo(2);
    assertThat(store.unfinishedOperations()).containsExactly(running);
    assertThatThrownBy(() -> store.updateOperation(op.attempt(), 1, lease.token()))
        .isInstanceOf(VersionConflictException.class);
    clock.advance(TTL);
    assertThat(store.leases().acquire(s.id(), "b", TTL)).isPresent();
    assertThatThrownBy(
            () -> store.updateOperation(running.succeed(clock.instant()), 2, lease.token()))
        .isInstanceOf(StaleFenceException.class);
    assertThat(store.getOperation(op.id()).orElseThrow().state()).isEqualTo(OperationState.RUNNING);
  }

  @Test
  void listsOperationsOldestFirstAndOnlyUnfinishedOnesAsUnfinished() {
    Session s = stored();
    Lease lease = store.leases().acquire(s.id(), "a", TTL).orElseThrow();
    Operation p = store.createOperation(pendingOp(s, OperationType.PROVISION, 1));
    clock.advance(Duration.ofSeconds(1));
    Operation t = store.createOperation(pendingOp(s, OperationType.TERMINATE, 2));
    Operation done = store.updateOperation(p.attempt().succeed(clock.instant()), 1, lease.token());
    assertThat(store.listOperations(s.id())).containsExactly(done, t);
    assertThat(store.unfinishedOperations()).containsExactly(t);
    assertThat(store.listOperations(TestSessions.newId())).isEmpty();
  }

  @Test
  void storesExecutionsWithCompareAndSet() {
    Session s = stored();
    Execution queued =
        Execution.queued(
            ExecutionId.generate(new SplittableRandom(7)),
            s.id(),
            ExecutionKind.COMMAND,
            "make test",
            1,
            Optional.of("key-1"),
            clock.instant());
    Execution created = store.createExecution(queued);
    assertThat(created.version()).isEqualTo(1);
    assertThatThrownBy(() -> store.createExecution(queued))
        .isInstanceOf(AlreadyExistsException.class);
    Execution started = store.updateExecution(created.start(0, clock.instant()), 1);
    Execution done = store.updateExecution(started.exit(3, 42, clock.instant()), 2);
    assertThat(store.getExecution(queued.id())).contains(done);
    assertThat(done.state()).isEqualTo(ExecutionState.FAILED);
    assertThat(done.exitCode()).contains(3);
    assertThat(store.listExecutions(s.id())).containsExactly(done);
    assertThatThrownBy(() -> store.updateExecution(created.cancel(clock.instant()), 1))
        .isInstanceOf(VersionConflictException.class);
  }

  @Test
  void appendsAuditEventsWithGrowingSequencesAndReadsThemAfterACursor() {
    Session s = stored();
    Session other = stored();
    List<AuditEvent> appended = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      appended.add(
          store.append(AuditEvent.of(s.id(), clock.instant(), "t", "session.test", "event " + i)));
      store.append(AuditEvent.of(other.id(), clock.instant(), "t", "session.test", "noise"));
    }
    assertThat(appended).extracting(AuditEvent::sequence).isSorted().doesNotHaveDuplicates();
    assertThat(store.events(s.id(), 0, 100)).containsExactlyElementsOf(appended);
    assertThat(store.events(s.id(), appended.get(1).sequence(), 2))
        .containsExactly(appended.get(2), appended.get(3));
  }
}
