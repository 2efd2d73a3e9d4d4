package dev.berth.client;

import static dev.berth.client.FakeBerth.SID;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.berth.core.approval.ApprovalId;
import dev.berth.core.session.SessionId;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ApprovalsClientTest {

  private static final SessionId ID = new SessionId(SID);
  private static final String REQUEST = "00112233445566778899aabbccddeeff";
  private static final String APPROVAL = SID + ":" + REQUEST;
  private static final ApprovalId APPROVAL_ID = new ApprovalId(APPROVAL);
  private static final String PATH = "/api/v1/sessions/" + SID + "/approvals";

  private static String approval(String state, String extra) {
    return "{\"id\":\""
        + APPROVAL
        + "\",\"sessionId\":\""
        + SID
        + "\",\"tool\":\"Bash\",\"argumentsDigest\":\"sha256:"
        + "ab".repeat(32)
        + "\",\"arguments\":\"{\\\"command\\\":\\\"touch marker.txt\\\"}\",\"requester\":\"admin\","
        + "\"state\":\""
        + state
        + "\",\"createdAt\":\"2026-01-02T03:04:05Z\",\"expiresAt\":\"2026-01-02T03:14:05Z\""
        + extra
        + ",\"futureField\":1}";
  }

  @Test
  void listsOnlyThePendingApprovalsWhenAskedAndReadsEveryField() {
    try (FakeBerth berth =
            FakeBerth.start(
                r ->
                    r.get(
                        PATH,
                        ctx ->
                            FakeBerth.json(
                                ctx, 200, "{\"items\":[" + approval("pending", "") + "]}")));
        BerthClient client = berth.client()) {
      List<Approval> approvals = client.approvals(ID, true);

      assertThat(berth.seen(PATH).get(0).query()).isEqualTo("state=pending");
      assertThat(approvals).hasSize(1);
      Approval a = approvals.get(0);
      assertThat(a.id()).isEqualTo(APPROVAL_ID);
      assertThat(a.requestId()).isEqualTo(REQUEST);
      assertThat(a.sessionId()).contains(ID);
      assertThat(a.tool()).isEqualTo("Bash");
      assertThat(a.isPending()).isTrue();
      assertThat(a.argumentsText()).isEqualTo("{\"command\":\"touch marker.txt\"}");
      assertThat(a.expiresAt()).contains(Instant.parse("2026-01-02T03:14:05Z"));
      assertThat(a.decidedAt()).isEmpty();
      assertThat(a.json().path("futureField").asInt()).isEqualTo(1);
    }
  }

  @Test
  void listsEveryApprovalWithoutAStateFilter() {
    try (FakeBerth berth =
            FakeBerth.start(r -> r.get(PATH, ctx -> FakeBerth.json(ctx, 200, "{\"items\":[]}")));
        BerthClient client = berth.client()) {
      assertThat(client.approvals(ID, false)).isEmpty();
      assertThat(berth.seen(PATH).get(0).query()).isNull();
    }
  }

  @Test
  void sendsTheDecisionAndTheReasonAndReadsTheDecidedApproval() {
    try (FakeBerth berth =
            FakeBerth.start(
                r ->
                    r.post(
                        PATH + "/{approval}",
                        ctx ->
                            FakeBerth.json(
                                ctx,
                                200,
                                approval(
                                    "rejected",
                                    ",\"reason\":\"not today\",\"decidedBy\":\"admin\","
                                        + "\"decidedAt\":\"2026-01-02T03:05:00Z\""))));
        BerthClient client = berth.client()) {
      Approval decided =
          client.decideApproval(
              ID, APPROVAL_ID, Approval.Decision.REJECT, Optional.of("not today"));

      FakeBerth.Seen request = berth.seen(PATH + "/" + APPROVAL).get(0);
      assertThat(request.body()).isEqualTo("{\"decision\":\"reject\",\"reason\":\"not today\"}");
      assertThat(decided.state()).isEqualTo("rejected");
      assertThat(decided.isPending()).isFalse();
      assertThat(decided.reason()).contains("not today");
      assertThat(decided.decidedBy()).contains("admin");
      assertThat(decided.decidedAt()).contains(Instant.parse("2026-01-02T03:05:00Z"));
    }
  }

  @Test
  void anApprovalDecidedAlreadyIsAnApiExceptionWithItsReason() {
    try (FakeBerth berth =
            FakeBerth.start(
                r ->
                    r.post(
                        PATH + "/{approval}",
                        ctx ->
                            FakeBerth.problem(
                                ctx, 409, "APPROVAL_DECIDED", "approval was approved already")));
        BerthClient client = berth.client()) {
      assertThatThrownBy(
              () ->
                  client.decideApproval(
                      ID, APPROVAL_ID, Approval.Decision.APPROVE, Optional.empty()))
          .isInstanceOfSatisfying(
              BerthApiException.class,
              e -> {
                assertThat(e.status()).isEqualTo(409);
                assertThat(e.reason()).isEqualTo("APPROVAL_DECIDED");
              });
      assertThat(berth.seen(PATH + "/" + APPROVAL).get(0).body())
          .isEqualTo("{\"decision\":\"approve\"}");
    }
  }

  @Test
  void anApprovalWhoseIdIsNotASessionsRequestIsAProtocolError() {
    try (FakeBerth berth =
            FakeBerth.start(
                r ->
                    r.get(
                        PATH,
                        ctx ->
                            FakeBerth.json(
                                ctx,
                                200,
                                "{\"items\":["
                                    + approval("pending", "").replace(APPROVAL, "../../admin")
                                    + "]}")));
        BerthClient client = berth.client()) {
      assertThatThrownBy(() -> client.approvals(ID, false))
          .isInstanceOf(BerthProtocolException.class)
          .hasMessageContaining("not a valid approval");
    }
  }
}
