package dev.berth.server.store.sql;

import static dev.berth.server.store.sql.EpochNanos.nanos;

import dev.berth.core.execution.Execution;
import dev.berth.core.execution.ExecutionId;
import dev.berth.core.session.SessionId;
import dev.berth.server.store.sql.VersionedRows.Column;
import dev.berth.server.store.sql.VersionedRows.IfTaken;
import dev.berth.server.store.sql.VersionedRows.Precondition;
import dev.berth.store.RecordSessionStore;
import dev.berth.store.StoreJson;
import java.util.List;
import java.util.Optional;

/**
 * The {@code executions} table. Beside the body it keeps only the session and the submission time
 * (as {@code created_at}), which orders a session's executions: nothing selects executions by their
 * state, so an update rewrites the version and the body alone. The port gives execution writes no
 * fencing token, so an update is a plain compare-and-swap.
 */
final class ExecutionRows implements RecordSessionStore.Executions {

  private final VersionedRows<Execution> rows;

  ExecutionRows(SqlDatabase db, StoreJson json) {
    this.rows =
        new VersionedRows<>(
            db,
            "executions",
            "execution",
            new RecordBody<>(json::writeExecution, json::readExecution, Execution::withVersion));
  }

  @Override
  public Execution create(Execution execution) {
    return rows.create(
        execution.id().value(),
        execution,
        List.of(
            Column.of("session_id", execution.sessionId().value()),
            Column.of("created_at", nanos(execution.submittedAt()))),
        IfTaken.FAIL);
  }

  @Override
  public Optional<Execution> get(ExecutionId id) {
    return rows.get(id.value());
  }

  @Override
  public List<Execution> ofSession(SessionId session) {
    return rows.ofSession(session.value());
  }

  @Override
  public Execution update(Execution next, long expectedVersion) {
    return rows.update(next.id().value(), next, expectedVersion, List.of(), Precondition.NONE);
  }
}
