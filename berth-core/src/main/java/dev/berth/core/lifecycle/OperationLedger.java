package dev.berth.core.lifecycle;

import dev.berth.core.operation.Operation;
import dev.berth.core.operation.OperationId;
import dev.berth.core.session.Session;
import dev.berth.core.session.SessionId;
import dev.berth.core.store.FencingToken;
import dev.berth.core.store.SessionStore;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The operations of one session as one reconcile pass sees them: read from the store once, kept
 * current by the pass's own writes, and added to only when an operation the pass needs is missing.
 *
 * <p>Why one read is enough. The pass holds the session lease, and every operation update is fenced
 * by it, so no one else changes an operation under the ledger. Others only create operations, and
 * they do so with a new intent (an intent request records the intent, then the operation serving
 * it): the ledger therefore reads again when it is shown the session with an intent version it has
 * not read for, and only then.
 *
 * <p>Crash safety. Lifecycle operation ids are deterministic (session, type, intent version or
 * incarnation), and the store's {@link SessionStore#createOperation} is idempotent by id: it
 * returns the stored record unchanged when one exists. So {@link #findOrCreate} never records a
 * second operation, whether the first was recorded by a pass that died, by a request that raced
 * this pass after the ledger read, or by this pass itself; a restarted control plane repeating a
 * step finds the same operation.
 *
 * <p>Finding never writes: only {@link #findOrCreate} of a missing id, and {@link #update}, do.
 *
 * <p>Concurrency: not thread-safe; a pass is single-threaded.
 */
final class OperationLedger {
  private final SessionStore store;
  private final SessionId session;
  private final FencingToken fence;
  private final OperationEvents events;
  private final Map<OperationId, Operation> byId = new LinkedHashMap<>();
  private OptionalLong readForIntent = OptionalLong.empty();

  OperationLedger(
      SessionStore store, SessionId session, FencingToken fence, OperationEvents events) {
    this.store = store;
    this.session = session;
    this.fence = fence;
    this.events = events;
  }

  /**
   * Shows the ledger the session as the pass just read it: the first time, and whenever its intent
   * version moved since the last read, the ledger reads the session's operations from the store.
   */
  void follow(Session s) {
    if (!s.id().equals(session)) {
      throw new IllegalArgumentException(
          "the operation ledger of session " + session + " cannot follow session " + s.id());
    }
    long intent = s.intent().version();
    if (readForIntent.isPresent() && readForIntent.getAsLong() == intent) {
      return;
    }
    byId.clear();
    for (Operation op : store.listOperations(session)) {
      byId.put(op.id(), op);
    }
    readForIntent = OptionalLong.of(intent);
  }

  /** The session's operations, oldest first. */
  List<Operation> operations() {
    requireRead();
    return List.copyOf(byId.values());
  }

  Optional<Operation> find(OperationId id) {
    requireRead();
    return Optional.ofNullable(byId.get(id));
  }

  /**
   * The operation with {@code pending}'s id: the known one, else {@code pending} recorded (or, when
   * someone recorded that id since the ledger read, the stored one).
   */
  Operation findOrCreate(Operation pending) {
    Optional<Operation> known = find(pending.id());
    if (known.isPresent()) {
      return known.get();
    }
    Operation recorded = store.createOperation(pending);
    byId.put(recorded.id(), recorded);
    // Also when the store answered a record someone else made since the ledger read (a request,
    // or a pass that died): that one was never reported by this process either.
    events.recorded(recorded);
    return recorded;
  }

  /**
   * Stores {@code next} over the version it carries, fenced by the pass's lease, and remembers the
   * stored copy.
   */
  Operation update(Operation next) {
    requireRead();
    Operation before = byId.get(next.id());
    Operation stored = store.updateOperation(next, next.version(), fence);
    byId.put(stored.id(), stored);
    events.updated(before == null ? next : before, stored);
    return stored;
  }

  private void requireRead() {
    if (readForIntent.isEmpty()) {
      throw new IllegalStateException(
          "the operation ledger of session " + session + " was read for no session yet");
    }
  }
}
