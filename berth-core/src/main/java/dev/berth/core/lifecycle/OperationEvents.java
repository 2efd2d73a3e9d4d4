package dev.berth.core.lifecycle;

import dev.berth.core.operation.Operation;

/**
 * What the reconciler tells the outside world about the operations it runs: each one recorded, and
 * each stored change (an attempt, a step, the end). The server logs them and counts them in its
 * metrics; the domain only reports.
 *
 * <p>Called on the reconcile pass's thread after the store accepted the write, so an event never
 * announces what did not happen; a listener must be quick and must not throw (what it throws is the
 * pass's failure).
 */
public interface OperationEvents {

  /** Reports nothing: for tests and tools that do not observe. */
  OperationEvents NONE =
      new OperationEvents() {
        @Override
        public void recorded(Operation operation) {}

        @Override
        public void updated(Operation before, Operation after) {}
      };

  /** {@code operation} was stored for the first time. */
  void recorded(Operation operation);

  /** The stored {@code before} became {@code after}. */
  void updated(Operation before, Operation after);
}
