package dev.berth.server.session;

import dev.berth.core.approval.ApprovalRelay;
import dev.berth.core.approval.Approvals;
import dev.berth.core.approval.CancelApprovals;
import dev.berth.core.approval.DecideApproval;
import dev.berth.core.approval.ExpireApprovals;
import dev.berth.core.approval.GatewayKeys;
import dev.berth.core.approval.ReadApprovals;
import dev.berth.core.approval.RequestApproval;
import dev.berth.core.approval.WithdrawApproval;
import dev.berth.core.store.SessionStore;
import java.time.Clock;
import java.time.Duration;

/**
 * The core's approval use cases wired once over the store (the composition root builds this; the
 * API's approval and gateway routes only call it).
 *
 * @param keys verifies the {@code x-api-key} a session's proxy presents to the gateway routes
 */
public record ApprovalUseCases(
    ReadApprovals read,
    DecideApproval decide,
    RequestApproval request,
    CancelApprovals cancel,
    ExpireApprovals expire,
    WithdrawApproval withdraw,
    GatewayKeys keys) {

  public static ApprovalUseCases wire(
      Approvals approvals,
      SessionStore store,
      ApprovalRelay relay,
      Clock clock,
      Duration timeout,
      GatewayKeys keys) {
    return new ApprovalUseCases(
        new ReadApprovals(approvals, store, clock),
        new DecideApproval(approvals, store, clock),
        new RequestApproval(approvals, store, relay, clock, timeout),
        new CancelApprovals(approvals, store, clock),
        new ExpireApprovals(approvals, store, clock),
        new WithdrawApproval(approvals, store, clock),
        keys);
  }
}
