package dev.berth.core.approval;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.berth.core.error.AlreadyExistsException;
import dev.berth.core.error.ApprovalRefusedException;
import dev.berth.core.error.NotFoundException;
import dev.berth.core.session.DesiredState;
import dev.berth.core.session.Session;
import dev.berth.core.session.SessionId;
import dev.berth.core.store.AuditEvent;
import dev.berth.core.testing.InMemoryApprovals;
import dev.berth.core.testing.InMemorySessionStore;
import dev.berth.core.testing.MutableClock;
import dev.berth.core.testing.TestSessions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Requesting, deciding, expiring and cancelling approvals, on the memory adapters. */
class ApprovalUseCasesTest {
  private static final Duration TIMEOUT = Duration.ofMinutes(10);
  private static final String DIGEST = "sha256:" + "ab".repeat(32);

  private final MutableClock clock = MutableClock.at("2026-12-05T10:00:00Z");
  private final InMemorySessionStore sessions = new InMemorySessionStore(clock);
  private final InMemoryApprovals approvals = new InMemoryApprovals();
  private final List<Approval> relayed = new ArrayList<>();
  private final RequestApproval request =
      new RequestApproval(approvals, sessions, relayed::add, clock, TIMEOUT);
  private final DecideApproval decide = new DecideApproval(approvals, sessions, clock);
  private final ReadApprovals read = new ReadApprovals(approvals, sessions, clock);
  private final Session session = sessions.create(TestSessions.ready(clock.instant()));

  private RequestApproval.Call call(SessionId of, String requestId, String digest) {
    return new RequestApproval.Call(
        ApprovalId.of(of, requestId), "WebFetch", digest, "{\"url\":\"x\"}", Optional.empty());
  }

  private RequestApproval.Call call(String requestId) {
    return call(session.id(), requestId, DIGEST);
  }

  @Test
  void aRequestCreatesAPendingApprovalForTheSessionsTenantAndRelaysIt() {
    RequestApproval.Requested asked = request.request(call("1".repeat(32)));

    assertThat(asked.created()).isTrue();
    Approval approval = asked.approval();
    assertThat(approval.state()).isEqualTo(ApprovalState.PENDING);
    assertThat(approval.tenant()).isEqualTo(session.tenant());
    assertThat(approval.requester()).isEqualTo(session.tenant().value());
    assertThat(approval.expiresAt())
        .as("the proxy's deadline (the timeout) and a grace for its withdraw")
        .isEqualTo(clock.instant().plus(TIMEOUT).plus(RequestApproval.GRACE));
    assertThat(relayed).containsExactly(approval);
    assertThat(read.countPending(session.id())).isEqualTo(1);
  }

  @Test
  void theSameRequestAgainAnswersTheStoredApprovalAndRelaysNothingNew() {
    Approval first = request.request(call("1".repeat(32))).approval();
    clock.advance(Duration.ofSeconds(3));

    RequestApproval.Requested again = request.request(call("1".repeat(32)));

    assertThat(again.created()).isFalse();
    assertThat(again.approval()).isEqualTo(first);
    assertThat(relayed).hasSize(1);
  }

  @Test
  void theSameIdWithOtherArgumentsIsRefused() {
    request.request(call("1".repeat(32)));

    assertThatThrownBy(
            () -> request.request(call(session.id(), "1".repeat(32), "sha256:" + "cd".repeat(32))))
        .isInstanceOf(AlreadyExistsException.class)
        .hasMessageContaining("needs a new request id");
  }

  @Test
  void aRequestForAnUnknownSessionIsNotFound() {
    assertThatThrownBy(() -> request.request(call(TestSessions.newId(), "1".repeat(32), DIGEST)))
        .isInstanceOf(NotFoundException.class);
  }

  @Test
  void aRequestOfASessionOnItsWayToSuspendIsCancelledAtOnce() {
    Session suspending =
        sessions.compareAndSet(
            session.withIntent(DesiredState.SUSPENDED, clock.instant(), "tester", "idle"),
            session.version());

    Approval asked = request.request(call(suspending.id(), "2".repeat(32), DIGEST)).approval();

    assertThat(asked.state()).isEqualTo(ApprovalState.CANCELLED);
    assertThat(asked.reason()).contains("the session is suspending");
    assertThat(relayed).isEmpty();
  }

  @Test
  void aDecisionIsFinalAuditedWithItsDeciderAndASecondIsRefused() {
    Approval asked = request.request(call("1".repeat(32))).approval();

    Approval approved =
        decide.decide(
            session.id(),
            asked.id(),
            DecideApproval.Decision.APPROVE,
            Optional.empty(),
            "tenant acme");

    assertThat(approved.state()).isEqualTo(ApprovalState.APPROVED);
    assertThat(approved.decidedBy()).contains("tenant acme");
    assertThat(approved.decidedAt()).contains(clock.instant());
    List<AuditEvent> audit = sessions.events(session.id(), 0, 100);
    assertThat(audit)
        .anySatisfy(
            e -> {
              assertThat(e.type()).isEqualTo("approval.approved");
              assertThat(e.actor()).isEqualTo("tenant acme");
              assertThat(e.detail()).contains("WebFetch", asked.id().value());
            });
    assertThatThrownBy(
            () ->
                decide.decide(
                    session.id(),
                    asked.id(),
                    DecideApproval.Decision.REJECT,
                    Optional.of("changed my mind"),
                    "admin"))
        .isInstanceOfSatisfying(
            ApprovalRefusedException.class,
            e -> assertThat(e.reason()).isEqualTo("APPROVAL_DECIDED"))
        .hasMessageContaining("approved by tenant acme");
  }

  @Test
  void aRejectionKeepsItsReason() {
    Approval asked = request.request(call("1".repeat(32))).approval();

    Approval rejected =
        decide.decide(
            session.id(),
            asked.id(),
            DecideApproval.Decision.REJECT,
            Optional.of("not that site"),
            "admin");

    assertThat(rejected.state()).isEqualTo(ApprovalState.REJECTED);
    assertThat(rejected.reason()).contains("not that site");
  }

  @Test
  void anApprovalPastItsExpiryReadsExpiredAndItsDecisionIsRefusedAsExpired() {
    Approval asked = request.request(call("1".repeat(32))).approval();
    clock.advance(TIMEOUT.plus(RequestApproval.GRACE));

    assertThat(read.countPending(session.id())).isZero();
    assertThat(read.find(asked.id()).orElseThrow().state()).isEqualTo(ApprovalState.EXPIRED);
    assertThatThrownBy(
            () ->
                decide.decide(
                    session.id(),
                    asked.id(),
                    DecideApproval.Decision.APPROVE,
                    Optional.empty(),
                    "admin"))
        .isInstanceOfSatisfying(
            ApprovalRefusedException.class,
            e -> assertThat(e.reason()).isEqualTo("APPROVAL_EXPIRED"));
  }

  @Test
  void anApprovalOfAnotherSessionOrAnUnknownOneIsNotFound() {
    Approval asked = request.request(call("1".repeat(32))).approval();
    Session other = sessions.create(TestSessions.ready(clock.instant()));

    for (ApprovalId id : List.of(asked.id(), ApprovalId.of(session.id(), "f".repeat(32)))) {
      SessionId route = id.equals(asked.id()) ? other.id() : session.id();
      assertThatThrownBy(
              () ->
                  decide.decide(
                      route, id, DecideApproval.Decision.APPROVE, Optional.empty(), "admin"))
          .isInstanceOfSatisfying(
              ApprovalRefusedException.class,
              e -> assertThat(e.reason()).isEqualTo("APPROVAL_NOT_FOUND"));
    }
  }

  @Test
  void theSweepExpiresOverdueApprovalsNobodyReads() {
    request.request(call("1".repeat(32)));
    clock.advance(Duration.ofMinutes(5));
    request.request(call("2".repeat(32)));
    clock.advance(Duration.ofMinutes(5).plus(RequestApproval.GRACE));

    assertThat(new ExpireApprovals(approvals, sessions, clock).sweep()).isEqualTo(1);
    assertThat(approvals.countPending(session.id())).isEqualTo(1);
    assertThat(approvals.list(session.id(), Optional.of(ApprovalState.EXPIRED)))
        .singleElement()
        .satisfies(a -> assertThat(a.decidedBy()).contains(Approval.BERTH));
  }

  @Test
  void cancellingASessionsPendingApprovalsLeavesTheDecidedOnesAlone() {
    Approval decided = request.request(call("1".repeat(32))).approval();
    decide.decide(
        session.id(), decided.id(), DecideApproval.Decision.APPROVE, Optional.empty(), "admin");
    request.request(call("2".repeat(32)));
    request.request(call("3".repeat(32)));

    int cancelled =
        new CancelApprovals(approvals, sessions, clock)
            .cancelPending(session.id(), "the session is being deleted");

    assertThat(cancelled).isEqualTo(2);
    assertThat(read.countPending(session.id())).isZero();
    assertThat(approvals.find(decided.id()).orElseThrow().state())
        .isEqualTo(ApprovalState.APPROVED);
    assertThat(approvals.list(session.id(), Optional.of(ApprovalState.CANCELLED)))
        .allSatisfy(a -> assertThat(a.reason()).contains("the session is being deleted"));
  }

  private RequestApproval.Call held(String requestId, Duration hold) {
    return new RequestApproval.Call(
        ApprovalId.of(session.id(), requestId),
        "WebFetch",
        DIGEST,
        "{}",
        Optional.empty(),
        Optional.of(hold));
  }

  @Test
  void anApprovalExpiresAGraceAfterTheProxysDeadlineAndNeverLaterThanTheServersTimeoutAllows() {
    Approval shortHold = request.request(held("1".repeat(32), Duration.ofSeconds(90))).approval();
    Approval longHold = request.request(held("2".repeat(32), Duration.ofHours(2))).approval();

    assertThat(shortHold.expiresAt())
        .isEqualTo(clock.instant().plusSeconds(90).plus(RequestApproval.GRACE));
    assertThat(longHold.expiresAt())
        .as("a proxy told an older, longer timeout is held to the server's")
        .isEqualTo(clock.instant().plus(TIMEOUT).plus(RequestApproval.GRACE));
  }

  @Test
  void aWithdrawnApprovalEndsCancelledByTheProxyAuditedAndCannotBeApprovedAfter() {
    Approval asked = request.request(call("1".repeat(32))).approval();
    WithdrawApproval withdraw = new WithdrawApproval(approvals, sessions, clock);

    Approval withdrawn = withdraw.withdraw(asked.id(), "no decision within 600 s");

    assertThat(withdrawn.state()).isEqualTo(ApprovalState.CANCELLED);
    assertThat(withdrawn.decidedBy()).contains(Approval.PROXY);
    assertThat(withdrawn.reason()).contains("the proxy stopped waiting: no decision within 600 s");
    assertThat(read.countPending(session.id())).as("it holds the session no more").isZero();
    assertThat(read.pendingUntil(session.id())).isEmpty();
    assertThat(sessions.events(session.id(), 0, 100))
        .anySatisfy(
            e -> {
              assertThat(e.type()).isEqualTo("approval.cancelled");
              assertThat(e.actor()).isEqualTo(Approval.PROXY);
            });
    assertThatThrownBy(
            () ->
                decide.decide(
                    session.id(),
                    asked.id(),
                    DecideApproval.Decision.APPROVE,
                    Optional.empty(),
                    "admin"))
        .isInstanceOfSatisfying(
            ApprovalRefusedException.class,
            e -> assertThat(e.reason()).isEqualTo("APPROVAL_DECIDED"));
    assertThat(withdraw.withdraw(asked.id(), "again")).as("idempotent").isEqualTo(withdrawn);
  }

  @Test
  void withdrawingAnApprovalDecidedFirstAnswersThatDecisionUnchanged() {
    Approval asked = request.request(call("1".repeat(32))).approval();
    Approval approved =
        decide.decide(
            session.id(), asked.id(), DecideApproval.Decision.APPROVE, Optional.empty(), "admin");

    Approval answer =
        new WithdrawApproval(approvals, sessions, clock).withdraw(asked.id(), "the client left");

    assertThat(answer).isEqualTo(approved);
  }

  @Test
  void withdrawingAnUnknownApprovalIsNotFoundAndALongReasonIsCut() {
    WithdrawApproval withdraw = new WithdrawApproval(approvals, sessions, clock);
    assertThatThrownBy(() -> withdraw.withdraw(ApprovalId.of(session.id(), "f".repeat(32)), "x"))
        .isInstanceOfSatisfying(
            ApprovalRefusedException.class,
            e -> assertThat(e.reason()).isEqualTo("APPROVAL_NOT_FOUND"));

    Approval asked = request.request(call("1".repeat(32))).approval();
    Approval withdrawn = withdraw.withdraw(asked.id(), "y".repeat(5000));
    assertThat(withdrawn.reason().orElseThrow())
        .hasSizeLessThan(WithdrawApproval.MAX_REASON + 40)
        .endsWith("…");
  }
}
