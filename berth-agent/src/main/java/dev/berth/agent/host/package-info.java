/**
 * The runtimes a host runs, one per session at a time, and the commands on them. Every command is
 * checked against the session's local contract before it has any effect; the runtime's state has
 * one transition table ({@link dev.berth.agent.host.RuntimeState#TABLE}): a shell that exits or a
 * runtime the host stops is reported, never restarted behind the control plane's back.
 *
 * <p>Who owns what, from the protocol's entry point down:
 *
 * <ul>
 *   <li>{@link dev.berth.agent.host.SessionHost}: the host's entry point (the HTTP routes and the
 *       node call it); it delegates every command and holds no logic of its own.
 *   <li>The hosting use cases: {@link dev.berth.agent.host.RuntimeHosting} provisions and removes
 *       runtimes, {@link dev.berth.agent.host.CheckpointCommands} checkpoints and restores them,
 *       {@link dev.berth.agent.host.HostReload} finds them again when a host opens on its root.
 *   <li>Per session: {@link dev.berth.agent.host.SessionCommands} admits a command under the
 *       session's contract ({@link dev.berth.agent.host.SessionContracts}) and, for a lifecycle
 *       command, its lock ({@link dev.berth.agent.host.SessionLocks}); both are reference-counted,
 *       so that neither map grows with every session ever hosted. {@link
 *       dev.berth.agent.host.RuntimeRegistry} holds the hosted runtimes and {@link
 *       dev.berth.agent.host.RuntimeDisks} their directories and disks.
 *   <li>Per runtime: {@link dev.berth.agent.host.HostedRuntime} assembles one runtime's parts and
 *       starts its workload; {@link dev.berth.agent.host.RuntimeLifecycle} owns where it stands
 *       (the transition table's moves and their effects, the stop reasons) and what runs in it,
 *       under the runtime's one monitor; {@link dev.berth.agent.host.ShellSlot} the shell (input,
 *       resize, exit record, a new shell on the next input); {@link
 *       dev.berth.agent.host.RuntimeExecutions} the executions and their logs; {@link
 *       dev.berth.agent.host.AgentPrompts} an agent session's prompts, plugins and transcript;
 *       {@link dev.berth.agent.host.RuntimeCheckpoint} the checkpoint (drain, prepare, write) and
 *       the restore.
 *   <li>What runs: a {@link dev.berth.agent.host.Workload} value, started by {@link
 *       dev.berth.agent.host.ShellWorkload} for a shell or {@link
 *       dev.berth.agent.host.AgentWorkload} for an agent CLI.
 * </ul>
 */
@NullMarked
package dev.berth.agent.host;

import org.jspecify.annotations.NullMarked;
