package dev.berth.server.store.sql;

import java.util.function.Supplier;

/**
 * A database whose reads and write transactions are timed, for {@code
 * berth_store_transactions_seconds}. A decorator, so that neither engine's code knows of it; {@link
 * #exclusively} is not timed itself, only the reads and writes it runs.
 */
final class TimedSqlDatabase implements SqlDatabase {

  private final SqlDatabase db;
  private final SqlTimings timings;

  TimedSqlDatabase(SqlDatabase db, SqlTimings timings) {
    this.db = db;
    this.timings = timings;
  }

  @Override
  public SqlDialect dialect() {
    return db.dialect();
  }

  @Override
  public org.flywaydb.core.api.MigrationVersion schemaVersion() {
    return db.schemaVersion();
  }

  @Override
  public String describe() {
    return db.describe();
  }

  @Override
  public <T> T read(String what, SqlWork<T> work) {
    return timed(SqlTimings.Kind.READ, () -> db.read(what, work));
  }

  @Override
  public <T> T write(String what, SqlWork<T> work) {
    return timed(SqlTimings.Kind.WRITE, () -> db.write(what, work));
  }

  @Override
  public <T> T exclusively(String what, String key, Supplier<T> work) {
    return db.exclusively(what, key, work);
  }

  @Override
  public AutoCloseable claim(String key, boolean shared, String refusal) {
    return db.claim(key, shared, refusal);
  }

  @Override
  public void close() {
    db.close();
  }

  private <T> T timed(SqlTimings.Kind kind, Supplier<T> work) {
    long start = System.nanoTime();
    boolean committed = false;
    try {
      T result = work.get();
      committed = true;
      return result;
    } finally {
      timings.took(kind, committed, System.nanoTime() - start);
    }
  }
}
