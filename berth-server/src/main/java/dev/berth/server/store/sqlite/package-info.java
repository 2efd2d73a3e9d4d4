/**
 * The embedded store: {@link dev.berth.server.store.sqlite.SqliteSessionStore} keeps sessions,
 * operations, executions, the audit log and the session leases in one SQLite file in WAL mode,
 * migrated by Flyway from {@code db/migration/sqlite}; {@link
 * dev.berth.server.store.sqlite.SqliteTenantDirectory} keeps tenants and token digests in the same
 * file.
 */
@NullMarked
package dev.berth.server.store.sqlite;

import org.jspecify.annotations.NullMarked;
