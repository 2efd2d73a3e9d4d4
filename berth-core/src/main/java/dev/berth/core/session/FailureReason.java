package dev.berth.core.session;

/**
 * Why a session or operation failed, specific enough to say what to fix. The runtime reasons come
 * from what a Kubernetes pod reports (see the Kubernetes runtime's mapping) as much as from the
 * local node.
 */
public enum FailureReason {
  /** No node has room for the runtime (a pod stays {@code Unschedulable}). */
  SCHEDULING,
  IMAGE_POLICY,
  /** The runtime's image cannot be pulled ({@code ErrImagePull}, {@code ImagePullBackOff}). */
  IMAGE_PULL,
  /** The image name is invalid, or the image may not be pulled and is not present. */
  IMAGE_INVALID,
  STORAGE,
  RUNTIME_HEALTH,
  /**
   * The runtime's control lease expired while its control plane was away, and its host stopped the
   * workload under the session's disconnect policy.
   */
  LEASE_EXPIRED,
  /**
   * The runtime's configuration refers to something missing ({@code CreateContainerConfigError}).
   */
  RUNTIME_CONFIG_INVALID,
  /** The agent was killed for using more memory than its limit ({@code OOMKilled}). */
  OUT_OF_MEMORY,
  /** The agent keeps exiting and its restarts are backing off ({@code CrashLoopBackOff}). */
  AGENT_CRASHLOOP,
  /** The runtime was evicted from its node (node pressure, preemption, a drain). */
  EVICTED,
  /** The runtime reports a state this version does not know; its raw words are in the message. */
  RUNTIME_UNKNOWN_REASON,
  CREDENTIAL_REFERENCE,
  UNSUPPORTED_CAPABILITY,
  ARCHIVE_CORRUPT,
  ARCHIVE_UNSAFE,
  ARCHIVE_MISSING,
  RUNTIME_LOST,
  DEADLINE_EXCEEDED,
  STALE_INTENT
}
