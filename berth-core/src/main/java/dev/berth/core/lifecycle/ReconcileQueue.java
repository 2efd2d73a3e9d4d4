package dev.berth.core.lifecycle;

import dev.berth.core.session.SessionId;

/**
 * Asks for a session to be reconciled soon rather than at its next resync: after an intent was
 * written, or when a call found its runtime gone. Requests for one session coalesce.
 */
public interface ReconcileQueue {

  void enqueue(SessionId id);
}
