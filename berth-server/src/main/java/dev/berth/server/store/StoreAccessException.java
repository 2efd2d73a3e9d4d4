package dev.berth.server.store;

/**
 * The store could not be read or written at all: the database file or server is unreachable, locked
 * for too long, full, or the store was closed. Unlike the domain exceptions of the store ports,
 * this says nothing about the record concerned; the write did not happen.
 */
public final class StoreAccessException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public StoreAccessException(String message, Throwable cause) {
    super(message, cause);
  }

  /** A refusal of the store itself, with no lower-level failure behind it. */
  public StoreAccessException(String message) {
    super(message);
  }
}
