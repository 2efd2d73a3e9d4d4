package dev.berth.kubernetes.store;

/**
 * A claim on the store conflicts with a live holder's ({@link ConfigMapClaims}): its message is the
 * refusal the claimant gave, naming who holds it and what to do instead.
 */
public final class ClaimRefusedException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public ClaimRefusedException(String refusal) {
    super(refusal);
  }
}
