/**
 * The local contract: how a session host refuses, by itself, the commands it must not obey, and how
 * it bounds a workload whose control plane went away (STATE-MODEL §4 "Versioned commands",
 * reliability ).
 *
 * <p>{@link dev.berth.protocol.contract.CommandHeaders} parses the three headers every lifecycle
 * command carries. {@link dev.berth.agent.contract.LocalContract} checks them, per session and
 * under one lock, in a fixed order: deadline, tombstone, intent version, operation id; a refused
 * command throws before any effect runs or any byte is written. What it accepted lives in a {@link
 * dev.berth.agent.contract.ContractRecord} persisted as {@code contract.json} (temporary file,
 * fsync, atomic rename, directory fsync), so a stale version is still refused after a host restart.
 * An unreadable file is an error, never a silent reset.
 *
 * <p>Crash ordering. Ordinary commands run their effect, then persist their acceptance, then reply:
 * a failed effect leaves no trace, and the one acceptance a crash can lose was never acknowledged,
 * so the control plane repeats it (effects are idempotent). Terminate persists its tombstone first
 * and stops the workload second, so a crash mid-stop still leaves the session refusing everything
 * but a repeated terminate, which stops the workload again.
 *
 * <p>{@link dev.berth.agent.contract.ControlLease} is the control lease and the local limits:
 * admission closes at expiry until a renewal, the {@link dev.berth.agent.contract.DisconnectPolicy}
 * decides whether the workload stops at once or after a grace, and a maximum lifetime counted on
 * the monotonic clock stops it regardless. Nothing here runs by itself; the host ticks the lease.
 */
@NullMarked
package dev.berth.agent.contract;

import org.jspecify.annotations.NullMarked;
