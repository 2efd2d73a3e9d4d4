package dev.berth.core.approval;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.core.session.SessionId;
import dev.berth.core.session.TenantId;
import dev.berth.core.testing.MutableClock;
import dev.berth.core.testing.TestSessions;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The contract every {@link Approvals} adapter must pass, unchanged: an adapter's test extends this
 * class and says how to build a fresh, empty adapter.
 */
public abstract class ApprovalsContract {
  private static final AtomicInteger REQUESTS = new AtomicInteger();
  private static final TenantId ACME = new TenantId("acme");

  protected MutableClock clock;
  private Approvals approvals;

  /** A fresh, empty adapter. */
  protected abstract Approvals newApprovals(MutableClock clock) throws Exception;

  /** Frees what {@link #newApprovals} allocated. */
  protected void closeApprovals(Approvals a) throws Exception {}

  @BeforeEach
  void open() throws Exception {
    clock = MutableClock.at("2026-12-05T10:00:00.123456789Z");
    approvals = newApprovals(clock);
  }

  @AfterEach
  void close() throws Exception {
    closeApprovals(approvals);
  }

  /** A pending approval of {@code session} asked now, expiring in ten minutes. */
  protected Approval pending(SessionId session) {
    String request = HexFormat.of().toHexDigits((long) REQUESTS.incrementAndGet()).repeat(2);
    Instant now = clock.instant();
    return Approval.pending(
        ApprovalId.of(session, request),
        ACME,
        "WebFetch",
        "sha256:" + "ab".repeat(32),
        "{\"url\":\"https://example.com/ä\"}",
        "acme",
        now,
        now.plus(Duration.ofMinutes(10)));
  }

  @Test
  void aCreatedApprovalReadsBackWithEveryFieldAsStored() {
    Approval asked = pending(TestSessions.newId());

    assertThat(approvals.createIfAbsent(asked)).isEqualTo(asked);
    assertThat(approvals.find(asked.id())).contains(asked);
  }

  @Test
  void creatingAnIdThatExistsKeepsTheFirstAndAnswersIt() {
    Approval first = pending(TestSessions.newId());
    approvals.createIfAbsent(first);
    Approval other =
        Approval.pending(
            first.id(),
            ACME,
            "WebSearch",
            "sha256:" + "cd".repeat(32),
            "{}",
            "acme",
            clock.instant().plusSeconds(1),
            clock.instant().plusSeconds(60));

    assertThat(approvals.createIfAbsent(other)).isEqualTo(first);
    assertThat(approvals.find(first.id())).contains(first);
  }

  @Test
  void anUnknownIdIsNotFound() {
    assertThat(approvals.find(ApprovalId.of(TestSessions.newId(), "0".repeat(32)))).isEmpty();
  }

  @Test
  void aSessionsApprovalsListNewestFirstAndFilterByState() {
    SessionId session = TestSessions.newId();
    Approval older = approvals.createIfAbsent(pending(session));
    clock.advance(Duration.ofSeconds(5));
    Approval newer = approvals.createIfAbsent(pending(session));
    approvals.createIfAbsent(pending(TestSessions.newId()));
    Approval approved =
        newer.ended(ApprovalState.Event.APPROVE, Optional.empty(), "tenant acme", clock.instant());
    assertThat(approvals.end(approved)).isTrue();

    assertThat(approvals.list(session, Optional.empty())).containsExactly(approved, older);
    assertThat(approvals.list(session, Optional.of(ApprovalState.PENDING))).containsExactly(older);
    assertThat(approvals.list(session, Optional.of(ApprovalState.APPROVED)))
        .containsExactly(approved);
    assertThat(approvals.countPending(session)).isEqualTo(1);
  }

  @Test
  void anEndedApprovalIsFinalAndASecondEndIsRefused() {
    Approval asked = approvals.createIfAbsent(pending(TestSessions.newId()));
    Approval rejected =
        asked.ended(
            ApprovalState.Event.REJECT, Optional.of("not that site"), "admin", clock.instant());
    Approval approved =
        asked.ended(ApprovalState.Event.APPROVE, Optional.empty(), "admin", clock.instant());

    assertThat(approvals.end(rejected)).isTrue();
    assertThat(approvals.end(approved)).isFalse();
    assertThat(approvals.find(asked.id())).contains(rejected);
  }

  @Test
  void endingAnApprovalThatWasNeverStoredStoresNothing() {
    Approval never = pending(TestSessions.newId());
    Approval cancelled =
        never.ended(ApprovalState.Event.CANCEL, Optional.of("gone"), "berth", clock.instant());

    assertThat(approvals.end(cancelled)).isFalse();
    assertThat(approvals.find(never.id())).isEmpty();
  }

  @Test
  void theSweepFindsThePendingApprovalsPastTheirExpiryOnly() {
    Approval early = approvals.createIfAbsent(pending(TestSessions.newId()));
    clock.advance(Duration.ofMinutes(5));
    Approval late = approvals.createIfAbsent(pending(TestSessions.newId()));
    Approval endedEarly = approvals.createIfAbsent(pending(TestSessions.newId()));
    approvals.end(
        endedEarly.ended(ApprovalState.Event.CANCEL, Optional.empty(), "berth", clock.instant()));

    assertThat(approvals.pendingExpiredBy(early.expiresAt().minusNanos(1))).isEmpty();
    assertThat(approvals.pendingExpiredBy(early.expiresAt())).containsExactly(early);
    assertThat(approvals.pendingExpiredBy(late.expiresAt())).containsExactly(early, late);
  }

  @Test
  void theWaitingApprovalsAreThePendingOnesBeforeTheirExpiryOldestFirst() {
    Approval early = approvals.createIfAbsent(pending(TestSessions.newId()));
    clock.advance(Duration.ofMinutes(5));
    Approval late = approvals.createIfAbsent(pending(TestSessions.newId()));
    Approval decided = approvals.createIfAbsent(pending(TestSessions.newId()));
    approvals.end(
        decided.ended(ApprovalState.Event.APPROVE, Optional.empty(), "admin", clock.instant()));

    assertThat(approvals.waitingAt(clock.instant())).containsExactly(early, late);
    assertThat(approvals.waitingAt(early.expiresAt().minusNanos(1))).containsExactly(early, late);
    assertThat(approvals.waitingAt(early.expiresAt())).containsExactly(late);
    assertThat(approvals.waitingAt(late.expiresAt())).isEmpty();
  }

  @Test
  void twoDecidersRacingEndAnApprovalOnce() throws Exception {
    Approval asked = approvals.createIfAbsent(pending(TestSessions.newId()));
    int racers = 6;
    ExecutorService pool = Executors.newFixedThreadPool(racers);
    try {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<Boolean>> ends = new ArrayList<>();
      for (int i = 0; i < racers; i++) {
        ApprovalState.Event event =
            i % 2 == 0 ? ApprovalState.Event.APPROVE : ApprovalState.Event.REJECT;
        String by = "decider-" + i;
        ends.add(
            pool.submit(
                () -> {
                  start.await();
                  return approvals.end(asked.ended(event, Optional.empty(), by, clock.instant()));
                }));
      }
      start.countDown();
      int won = 0;
      for (Future<Boolean> end : ends) {
        won += end.get() ? 1 : 0;
      }
      assertThat(won).isEqualTo(1);
      assertThat(approvals.find(asked.id()).orElseThrow().state().isFinal()).isTrue();
    } finally {
      pool.shutdownNow();
    }
  }
}
