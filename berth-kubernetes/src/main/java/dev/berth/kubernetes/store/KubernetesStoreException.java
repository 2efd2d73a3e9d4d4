package dev.berth.kubernetes.store;

/**
 * The API server could not be asked at all, or refused for a reason other than a conflict: it is
 * unreachable, the service account lacks a permission, or an object is invalid. Unlike the domain
 * exceptions of the store ports, this says nothing about the record concerned; the write did not
 * happen (or, after a timeout, may have: the next read tells).
 */
public final class KubernetesStoreException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public KubernetesStoreException(String message, Throwable cause) {
    super(message, cause);
  }

  public KubernetesStoreException(String message) {
    super(message);
  }
}
