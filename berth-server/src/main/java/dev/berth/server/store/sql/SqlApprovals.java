package dev.berth.server.store.sql;

import static dev.berth.server.store.sql.EpochNanos.instant;
import static dev.berth.server.store.sql.EpochNanos.nanos;

import dev.berth.core.approval.Approval;
import dev.berth.core.approval.ApprovalId;
import dev.berth.core.approval.ApprovalState;
import dev.berth.core.approval.Approvals;
import dev.berth.core.session.SessionId;
import dev.berth.core.session.TenantId;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The {@code approvals} table, in the store's own database (SQLite or PostgreSQL): every replica on
 * a shared store sees the same approvals, and they survive a restart. Creating is an insert that
 * leaves an existing row alone; ending is an update guarded by the pending state, atomic on both
 * engines without a lock of its own.
 */
public final class SqlApprovals implements Approvals {

  private static final String COLUMNS =
      "id, session_id, tenant, tool, arguments_digest, arguments_preview, requester, created_at,"
          + " expires_at, state, reason, decided_by, decided_at";
  private static final String INSERT =
      "INSERT INTO approvals("
          + COLUMNS
          + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING";
  private static final String SELECT = "SELECT " + COLUMNS + " FROM approvals";
  private static final String NEWEST_FIRST = " ORDER BY created_at DESC, id ASC";
  private static final String END =
      "UPDATE approvals SET state = ?, reason = ?, decided_by = ?, decided_at = ?"
          + " WHERE id = ? AND state = 'PENDING'";

  private final SqlDatabase db;

  private SqlApprovals(SqlDatabase db) {
    this.db = db;
  }

  /** The approvals kept in {@code store}'s database. */
  public static SqlApprovals sharing(SqlSessionStore store) {
    return new SqlApprovals(Objects.requireNonNull(store, "store").database());
  }

  @Override
  public Approval createIfAbsent(Approval a) {
    return db.write(
        "create approval " + a.id(),
        c -> {
          SqlDatabase.update(
              c,
              INSERT,
              a.id().value(),
              a.session().value(),
              a.tenant().value(),
              a.tool(),
              a.argumentsDigest(),
              a.argumentsPreview(),
              a.requester(),
              nanos(a.createdAt()),
              nanos(a.expiresAt()),
              a.state().name(),
              a.reason().orElse(null),
              a.decidedBy().orElse(null),
              a.decidedAt().map(EpochNanos::nanos).orElse(null));
          return SqlDatabase.queryOne(
                  c, SELECT + " WHERE id = ?", SqlApprovals::row, a.id().value())
              .orElseThrow();
        });
  }

  @Override
  public Optional<Approval> find(ApprovalId id) {
    return db.read(
        "read approval " + id,
        c -> SqlDatabase.queryOne(c, SELECT + " WHERE id = ?", SqlApprovals::row, id.value()));
  }

  @Override
  public List<Approval> list(SessionId session, Optional<ApprovalState> state) {
    return db.read(
        "list approvals of session " + session,
        c ->
            state.isPresent()
                ? SqlDatabase.queryList(
                    c,
                    SELECT + " WHERE session_id = ? AND state = ?" + NEWEST_FIRST,
                    SqlApprovals::row,
                    session.value(),
                    state.get().name())
                : SqlDatabase.queryList(
                    c,
                    SELECT + " WHERE session_id = ?" + NEWEST_FIRST,
                    SqlApprovals::row,
                    session.value()));
  }

  @Override
  public boolean end(Approval ended) {
    return db.write(
        "end approval " + ended.id(),
        c ->
            SqlDatabase.update(
                    c,
                    END,
                    ended.state().name(),
                    ended.reason().orElse(null),
                    ended.decidedBy().orElse(null),
                    ended.decidedAt().map(EpochNanos::nanos).orElse(null),
                    ended.id().value())
                == 1);
  }

  @Override
  public int countPending(SessionId session) {
    return db.read(
        "count pending approvals of session " + session,
        c ->
            SqlDatabase.queryOne(
                    c,
                    "SELECT count(*) FROM approvals WHERE session_id = ? AND state = 'PENDING'",
                    r -> r.getInt(1),
                    session.value())
                .orElse(0));
  }

  /** How many approvals of every session are pending in the store, for the metrics' gauge. */
  public int countAllPending() {
    return db.read(
        "count pending approvals",
        c ->
            SqlDatabase.queryOne(
                    c, "SELECT count(*) FROM approvals WHERE state = 'PENDING'", r -> r.getInt(1))
                .orElse(0));
  }

  @Override
  public List<Approval> pendingExpiredBy(Instant now) {
    return db.read(
        "list overdue approvals",
        c ->
            SqlDatabase.queryList(
                c,
                SELECT + " WHERE state = 'PENDING' AND expires_at <= ? ORDER BY expires_at, id",
                SqlApprovals::row,
                nanos(now)));
  }

  @Override
  public List<Approval> waitingAt(Instant now) {
    return db.read(
        "list waiting approvals",
        c ->
            SqlDatabase.queryList(
                c,
                SELECT + " WHERE state = 'PENDING' AND expires_at > ? ORDER BY created_at, id",
                SqlApprovals::row,
                nanos(now)));
  }

  private static Approval row(ResultSet r) throws SQLException {
    long decidedAt = r.getLong("decided_at");
    Optional<Instant> decided = r.wasNull() ? Optional.empty() : Optional.of(instant(decidedAt));
    return new Approval(
        new ApprovalId(r.getString("id")),
        new SessionId(r.getString("session_id")),
        new TenantId(r.getString("tenant")),
        r.getString("tool"),
        r.getString("arguments_digest"),
        r.getString("arguments_preview"),
        r.getString("requester"),
        instant(r.getLong("created_at")),
        instant(r.getLong("expires_at")),
        ApprovalState.valueOf(r.getString("state")),
        Optional.ofNullable(r.getString("reason")),
        Optional.ofNullable(r.getString("decided_by")),
        decided);
  }
}
