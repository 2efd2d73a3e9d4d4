/**
 * What the server tells its operators: the meters behind {@code GET /metrics} (Micrometer, in the
 * Prometheus text format) and the lifecycle lines of its log. docs/operations.md lists every meter
 * with its labels; no label ever holds a session id, a tenant or a token, so the series stay few
 * whatever the number of sessions.
 */
@NullMarked
package dev.berth.server.telemetry;

import org.jspecify.annotations.NullMarked;
