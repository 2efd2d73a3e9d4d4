/**
 * Executions: commands run to completion beside the shell, each {@code bash -c} in the shell's
 * context and the session's confinement, with an output of its own.
 *
 * <p>{@link dev.berth.agent.execution.ExecutionRunner} is one per session. Its states are core's
 * {@link dev.berth.core.execution.ExecutionState} and every move goes through core's transition
 * table: exit 0 succeeds, another code fails, a cancel or a timeout cancels (the timeout flagged
 * {@code timedOut}), and closing the runner under a running execution loses it. {@link
 * dev.berth.agent.execution.ExecutionOutputs} lets the host give each execution its own output log.
 */
@NullMarked
package dev.berth.agent.execution;

import org.jspecify.annotations.NullMarked;
