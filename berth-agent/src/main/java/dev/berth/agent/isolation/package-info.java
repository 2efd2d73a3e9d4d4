/**
 * Confining a session's processes and finding them again to kill them.
 *
 * <p>{@link dev.berth.agent.isolation.Sandbox} detects once, by trying, what the host can enforce:
 * a cgroup per session (v2, else v1 {@code pids} and {@code memory}, nested under the agent's own
 * cgroup), bubblewrap namespaces (read-only root, writable state directories, a private {@code
 * /tmp}, own PID and IPC namespaces), and always RLIMIT_FSIZE. {@link
 * dev.berth.agent.isolation.WritablePaths} says what a workload may write; a runtime's {@code /tmp}
 * is a directory of its own ({@code tmp/} beside {@code home/}) rather than a tmpfs, so that what
 * the shell leaves there is part of the state that a snapshot archives and a restore brings back.
 * Without bwrap {@code /tmp} is the host's and belongs to no state. A {@link
 * dev.berth.agent.isolation.LaunchPlan} is one session's confinement: an argv prefix that enters
 * the cgroup before the workload runs, and the means to kill every process of the session (cgroup,
 * PID namespace, and an environment tag as the last resort) and to remove the cgroup. {@link
 * dev.berth.agent.isolation.Isolation} reports what is in force, never what was merely asked for.
 * {@link dev.berth.agent.isolation.Signals}, {@link dev.berth.agent.isolation.ProcStat} and {@link
 * dev.berth.agent.isolation.ProcessTree} are the small process-control primitives the shell and the
 * execution runner share; {@link dev.berth.agent.isolation.PtyNative} keeps pty4j's native library
 * (behind both the PTY and the signals) in one folder instead of a new temp directory per run.
 */
package dev.berth.agent.isolation;
