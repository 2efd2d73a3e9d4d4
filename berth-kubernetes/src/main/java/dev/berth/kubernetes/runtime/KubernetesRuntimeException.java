package dev.berth.kubernetes.runtime;

/**
 * The API server could not be asked, or refused for a reason other than a conflict: it is
 * unreachable, the control plane's service account lacks a permission, or an object is invalid. The
 * call may be repeated: every call of the runtime is idempotent.
 */
public final class KubernetesRuntimeException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public KubernetesRuntimeException(String message, Throwable cause) {
    super(message, cause);
  }
}
