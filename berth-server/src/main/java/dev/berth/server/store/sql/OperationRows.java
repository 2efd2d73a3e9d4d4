package dev.berth.server.store.sql;

import static dev.berth.server.store.sql.EpochNanos.nanos;

import dev.berth.core.operation.Operation;
import dev.berth.core.operation.OperationId;
import dev.berth.core.operation.OperationState;
import dev.berth.core.session.SessionId;
import dev.berth.core.store.FencingToken;
import dev.berth.server.store.sql.VersionedRows.Column;
import dev.berth.server.store.sql.VersionedRows.IfTaken;
import dev.berth.store.RecordSessionStore;
import dev.berth.store.StoreJson;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The {@code operations} table. Beside the body it keeps the session, the state (so that the
 * unfinished operations are found after a restart without reading every body) and the creation
 * time, which orders a session's operations.
 *
 * <p>A create is idempotent by id, so a duplicate request finds the first one's record: the insert
 * and the read of the existing row are one transaction. An update checks that the operation exists
 * before it checks the fence, in the same transaction as the write, so a write to a missing
 * operation fails as not found whatever its fence.
 */
final class OperationRows implements RecordSessionStore.Operations {

  private static final String UNFINISHED_STATES =
      Arrays.stream(OperationState.values())
          .filter(s -> !s.isFinished())
          .map(s -> "'" + s.name() + "'")
          .collect(Collectors.joining(", "));

  private final LeaseRows leases;
  private final SqlDialect dialect;
  private final VersionedRows<Operation> rows;

  OperationRows(SqlDatabase db, StoreJson json, LeaseRows leases) {
    this.leases = leases;
    this.dialect = db.dialect();
    this.rows =
        new VersionedRows<>(
            db,
            "operations",
            "operation",
            new RecordBody<>(json::writeOperation, json::readOperation, Operation::withVersion));
  }

  @Override
  public Operation create(Operation operation) {
    return rows.create(
        operation.id().value(),
        operation,
        List.of(
            Column.of("session_id", operation.sessionId().value()),
            Column.of("state", operation.state().name()),
            Column.of("created_at", nanos(operation.createdAt()))),
        IfTaken.KEEP_EXISTING);
  }

  @Override
  public Optional<Operation> get(OperationId id) {
    return rows.get(id.value());
  }

  @Override
  public List<Operation> ofSession(SessionId session) {
    return rows.ofSession(session.value());
  }

  @Override
  public List<Operation> unfinished() {
    return rows.list(
        "list unfinished operations",
        "state IN (" + UNFINISHED_STATES + ") ORDER BY created_at, " + dialect.insertionOrder());
  }

  @Override
  public Operation update(Operation next, long expectedVersion, FencingToken fence) {
    String id = next.id().value();
    return rows.update(
        id,
        next,
        expectedVersion,
        List.of(Column.of("state", next.state().name())),
        c -> {
          rows.requireExists(c, id);
          leases.requireFence(c, next.sessionId(), fence);
        });
  }
}
