/**
 * What every session store adapter shares, whatever technology keeps its records: the JSON body
 * format of sessions, operations, executions and audit events ({@link dev.berth.store.StoreJson}),
 * the error raised for a stored record that cannot be read ({@link
 * dev.berth.store.CorruptRecordException}), the page token of a session listing ({@link
 * dev.berth.store.PageCursor}), and the {@link dev.berth.core.store.SessionStore} assembled from
 * the parts that keep each kind of record ({@link dev.berth.store.RecordSessionStore}).
 *
 * <h2>Why a module of its own</h2>
 *
 * The SQL store (berth-server) and the ConfigMap store (berth-kubernetes) keep the same records in
 * the same format, so that a record moves between them unchanged, and each had its copy of this
 * code. It cannot live in either: berth-kubernetes must not depend on berth-server (the server
 * depends on it), and the server's SQL store has nothing to do with Kubernetes. berth-core is the
 * domain and must stay free of Jackson. berth-protocol is the vocabulary of the control plane and
 * the node, and a stored record's format is no part of that wire. So this small module sits beside
 * berth-core: it depends on the core and Jackson only (its architecture test holds it to that), and
 * both store adapters depend on it.
 */
@NullMarked
package dev.berth.store;

import org.jspecify.annotations.NullMarked;
