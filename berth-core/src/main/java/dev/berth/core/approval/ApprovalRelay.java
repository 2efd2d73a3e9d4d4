package dev.berth.core.approval;

/**
 * Hands each new approval on to whoever else decides (an external gateway). The relay records the
 * decision it gets back itself, through {@link DecideApproval}; it must not block the request.
 */
@FunctionalInterface
public interface ApprovalRelay {

  /** Nobody else decides: the approvals wait for the API. */
  ApprovalRelay NONE = approval -> {};

  void relay(Approval approval);
}
