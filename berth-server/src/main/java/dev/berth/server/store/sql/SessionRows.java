package dev.berth.server.store.sql;

import static dev.berth.server.store.sql.EpochNanos.instant;
import static dev.berth.server.store.sql.EpochNanos.nanos;
import static dev.berth.server.store.sql.SqlDatabase.update;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.berth.core.session.Activity;
import dev.berth.core.session.Phase;
import dev.berth.core.session.Session;
import dev.berth.core.session.SessionId;
import dev.berth.core.store.FencingToken;
import dev.berth.core.store.Page;
import dev.berth.core.store.SessionQuery;
import dev.berth.server.store.sql.RecordBody.Versioned;
import dev.berth.server.store.sql.VersionedRows.Column;
import dev.berth.server.store.sql.VersionedRows.IfTaken;
import dev.berth.store.PageCursor;
import dev.berth.store.RecordSessionStore;
import dev.berth.store.StoreJson;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;

/**
 * The {@code sessions} table. Beside the body it keeps the tenant, phase and deleted flag (for
 * filtering the listing) and the creation time (for its order).
 *
 * <p><b>Last access.</b> {@code sessions.last_access} (epoch nanoseconds) is authoritative over
 * {@code activity.lastAccess} in the JSON body: {@link #touch} moves only that column (never
 * backwards, without a version bump, so that it never conflicts with a compare-and-swap writer), a
 * compare-and-swap stores the greater of the column and the written value, and every read puts the
 * column value into the session it returns.
 *
 * <p><b>Paging.</b> Sessions are ordered by {@code (created_at, id)}; a page token encodes the last
 * key returned and the next page starts strictly after it, so sessions created or changed between
 * pages never make a client skip or repeat the others.
 *
 * <p><b>Parsed bodies.</b> Sessions already parsed are kept by id with the version their body was
 * written at. A row's body changes only with its version (every write bumps it; a touch changes
 * only last_access, a column), so a cached parse of the same version is the row's: a listing of
 * 10,000 sessions then reads the rows but parses only what changed, which is most of its cost
 * otherwise.
 */
final class SessionRows implements RecordSessionStore.Sessions {

  private static final String COLUMNS = "id, version, last_access, body, created_at";

  private final SqlDatabase db;
  private final LeaseRows leases;
  private final RecordBody<Session> body;
  private final VersionedRows<Session> rows;
  private final Cache<String, Parsed> parsed = Caffeine.newBuilder().maximumSize(50_000).build();

  private record Parsed(long version, Session session) {}

  SessionRows(SqlDatabase db, StoreJson json, LeaseRows leases) {
    this.db = db;
    this.leases = leases;
    this.body = new RecordBody<>(json::writeSession, json::readSession, Session::withVersion);
    this.rows = new VersionedRows<>(db, "sessions", "session", body, COLUMNS, this::session);
  }

  @Override
  public Session create(Session session) {
    List<Column> columns = new ArrayList<>(changing(session));
    columns.add(Column.of("tenant", session.tenant().value()));
    columns.add(Column.of("created_at", nanos(session.createdAt())));
    return rows.create(session.id().value(), session, columns, IfTaken.FAIL);
  }

  @Override
  public Optional<Session> get(SessionId id) {
    return rows.get(id.value());
  }

  @Override
  public Page<Session> list(SessionQuery query) {
    StringBuilder filter = new StringBuilder("1 = 1");
    List<Object> args = new ArrayList<>();
    if (query.tenant().isPresent()) {
      filter.append(" AND tenant = ?");
      args.add(query.tenant().get().value());
    }
    if (!query.phases().isEmpty()) {
      filter.append(" AND phase IN (");
      filter.append(String.join(", ", Collections.nCopies(query.phases().size(), "?"))).append(")");
      query.phases().stream().map(Phase::name).sorted().forEach(args::add);
    }
    switch (query.deleted()) {
      case INCLUDED -> {}
      case EXCLUDED -> filter.append(" AND deleted = 0");
      case ONLY -> filter.append(" AND deleted = 1");
    }
    if (query.pageToken().isPresent()) {
      PageCursor after = PageCursor.parse(query.pageToken().get());
      filter.append(" AND (created_at, id) > (?, ?)");
      args.add(nanos(after.createdAt()));
      args.add(after.id());
    }
    filter.append(" ORDER BY created_at, id LIMIT ?");
    args.add(query.limit() + 1);
    return PageCursor.page(
        rows.list("list sessions", filter.toString(), this::listed, args.toArray()), query.limit());
  }

  @Override
  public boolean touch(SessionId id, Instant at) {
    long nanos = nanos(at);
    return db.write(
        "touch session " + id,
        c ->
            update(
                    c,
                    "UPDATE sessions SET last_access = "
                        + db.dialect().greatest()
                        + "(last_access, ?) WHERE id = ?",
                    nanos,
                    id.value())
                == 1);
  }

  @Override
  public Session compareAndSet(Session next, long expectedVersion, Optional<FencingToken> fence) {
    Versioned<Session> stored = rows.at(next, expectedVersion + 1);
    List<Column> columns = changing(next);
    return db.write(
        "write session " + next.id(),
        c -> {
          if (fence.isPresent()) {
            leases.requireFence(c, next.id(), fence.get());
          }
          long lastAccess =
              rows.compareAndSet(
                  c,
                  next.id().value(),
                  expectedVersion,
                  stored,
                  columns,
                  "last_access",
                  rs -> rs.getLong(1));
          return withColumns(next, expectedVersion + 1, lastAccess);
        });
  }

  /** The columns a compare-and-swap rewrites beside the body. */
  private static List<Column> changing(Session s) {
    return List.of(
        Column.of("phase", s.phase().name()),
        Column.atLeast("last_access", nanos(s.activity().lastAccess())),
        Column.of("deleted", s.deleted() ? 1 : 0));
  }

  private PageCursor.Keyed<Session> listed(ResultSet rs) throws SQLException {
    Session s = session(rs);
    return new PageCursor.Keyed<>(
        s, new PageCursor(instant(rs.getLong("created_at")), s.id().value()));
  }

  private Session session(ResultSet rs) throws SQLException {
    String id = rs.getString("id");
    long version = rs.getLong("version");
    Parsed known = parsed.getIfPresent(id);
    Session s;
    if (known != null && known.version() == version) {
      s = known.session();
    } else {
      s = body.read(rs);
      parsed.put(id, new Parsed(version, s));
    }
    return withColumns(s, version, rs.getLong("last_access"));
  }

  private static Session withColumns(Session s, long version, long lastAccessNanos) {
    Activity a = s.activity();
    return s.withActivity(new Activity(instant(lastAccessNanos), a.keepAliveUntil(), a.busySince()))
        .withVersion(version);
  }
}
