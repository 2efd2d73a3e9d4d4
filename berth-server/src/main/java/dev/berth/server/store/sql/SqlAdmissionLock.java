package dev.berth.server.store.sql;

import dev.berth.core.session.TenantId;
import dev.berth.core.tenant.AdmissionLock;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * The admission lock of the control planes sharing one SQL store: on PostgreSQL an advisory lock
 * per tenant, so that a quota holds across replicas; on SQLite (one process per file) nothing
 * beyond the process's own lock.
 */
public final class SqlAdmissionLock implements AdmissionLock {

  private final SqlDatabase db;

  private SqlAdmissionLock(SqlDatabase db) {
    this.db = db;
  }

  /** The lock on {@code store}'s database; the store owns and closes it. */
  public static SqlAdmissionLock sharing(SqlSessionStore store) {
    return new SqlAdmissionLock(Objects.requireNonNull(store, "store").database());
  }

  @Override
  public <T> T holding(TenantId tenant, Supplier<T> work) {
    return db.exclusively(
        "admit a session of tenant " + tenant.value(), "berth-admission:" + tenant.value(), work);
  }
}
