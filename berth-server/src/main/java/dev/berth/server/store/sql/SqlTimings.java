package dev.berth.server.store.sql;

/**
 * Told how long each unit of the store's work took, pool wait included: for the metrics, which live
 * outside the store. Called on the thread that did the work, so it must be quick.
 */
@FunctionalInterface
public interface SqlTimings {

  /** A unit of work: an autocommit read or one write transaction. */
  enum Kind {
    READ,
    WRITE
  }

  /** Nothing is told. */
  SqlTimings NONE = (kind, committed, nanos) -> {};

  /**
   * @param committed whether the work returned (a write committed); false when it threw
   */
  void took(Kind kind, boolean committed, long nanos);
}
