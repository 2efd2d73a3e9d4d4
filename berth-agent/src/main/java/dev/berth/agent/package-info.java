/**
 * The Berth data plane: the session host that runs sessions. {@code berth node} hosts many on one
 * machine (the {@code local} runtime), {@code berth agent} hosts exactly one (a pod); both serve
 * the agent protocol of {@code docs/agent-protocol.md}.
 *
 * <p>Packages, from the inside out: {@code output} (the append-only byte log with cursors and its
 * SSE encoding), {@code shell} (one shell on a PTY), {@code execution} (commands run to completion
 * beside it), {@code isolation} (sandbox, cgroups, limits, whole-tree kill), {@code contract} (the
 * local contract: intent versions, tombstone, control lease, maximum lifetime), {@code archive}
 * (tar + zstd archives of a runtime's state and their all-or-nothing, hostile-proof restore),
 * {@code host} (the runtimes of a host and their commands), {@code http} (the protocol over HTTP
 * and WebSocket) and {@code node} (the processes: node daemon and single-session agent). Lower
 * packages never depend on higher ones; an architecture test keeps it so.
 */
@NullMarked
package dev.berth.agent;

import org.jspecify.annotations.NullMarked;
