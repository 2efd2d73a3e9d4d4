package dev.berth.core.session;

/** The facts a session reports about itself, following Kubernetes condition conventions. */
public enum ConditionType {
  /** Whether the control plane currently observes the runtime (Unknown after lost contact). */
  RUNTIME_OBSERVED("RuntimeObserved"),
  RUNTIME_READY("RuntimeReady"),
  WORKSPACE_READY("WorkspaceReady"),
  POLICY_APPLIED("PolicyApplied"),
  IDENTITY_BOUND("IdentityBound"),
  /** Whether the session admits new executions and input. */
  ADMITTING("Admitting");

  private final String wireName;

  ConditionType(String wireName) {
    this.wireName = wireName;
  }

  /** The name used on the wire, e.g. {@code RuntimeObserved}. */
  public String wireName() {
    return wireName;
  }
}
