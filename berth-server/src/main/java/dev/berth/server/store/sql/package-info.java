/**
 * The SQL store: {@link dev.berth.server.store.sql.SqlSessionStore} keeps sessions, operations,
 * executions, the audit log and the session leases, and {@link
 * dev.berth.server.store.sql.SqlTenantDirectory} tenants and token digests, in one SQLite file in
 * WAL mode (migrated by Flyway from {@code db/migration/sqlite}) or in a PostgreSQL database (from
 * {@code db/migration/postgres}). One adapter with two engines: the tables' SQL is written once,
 * and {@link dev.berth.server.store.sql.SqlDialect} holds where the engines differ.
 */
@NullMarked
package dev.berth.server.store.sql;

import org.jspecify.annotations.NullMarked;
