/**
 * Confining a session's processes and finding them again to kill them.
 *
 * <p>{@link dev.berth.agent.isolation.Sandbox} detects once, by trying, what the host can enforce:
 * a cgroup per session (v2, else v1 {@code pids}, {@code memory} and {@code cpu}, nested under the
 * agent's own cgroup), a bubblewrap sandbox (a user namespace with uid 1000 {@code berth}, mount,
 * PID, IPC, UTS, cgroup and network namespaces, the allowlisted {@link
 * dev.berth.agent.isolation.FilesystemView}, the {@link dev.berth.agent.isolation.SeccompFilter}),
 * the network mode ({@link dev.berth.agent.isolation.SessionNetwork}: loopback only, or egress
 * through slirp4netns with the host's addresses refused), and always RLIMIT_FSIZE. {@link
 * dev.berth.agent.isolation.WritablePaths} says what a workload may write and where it sees it (its
 * home at {@code /home/berth}, its own {@code tmp/} as {@code /tmp}, so that what the shell leaves
 * there is archived and restored with its state). A {@link dev.berth.agent.isolation.LaunchPlan} is
 * one session's confinement: an argv prefix that enters the cgroup and the network namespace, drops
 * to the session's host uid ({@link dev.berth.agent.isolation.UidClaims}, when the agent is root)
 * and starts bwrap, and the means to kill every process of the session (cgroup, PID namespace, and
 * an environment tag as the last resort) and to remove it all. {@link
 * dev.berth.agent.isolation.Isolation} reports what is in force, never what was merely asked for,
 * and names what is not ({@code weaknesses}). The sandbox tries the launch and the network with
 * {@link dev.berth.agent.isolation.SandboxProbe} and builds each plan's bwrap confinement with
 * {@link dev.berth.agent.isolation.Confiner}. {@link dev.berth.agent.isolation.StateDisks} gives
 * each runtime's state a filesystem of its cap's size: an ext4 image ({@link
 * dev.berth.agent.isolation.Ext4Images}) loop-mounted by a root node, mounted with fuse2fs by an
 * unprivileged one ({@link dev.berth.agent.isolation.StateDiskProbe} finds which works). {@link
 * dev.berth.agent.isolation.Signals}, {@link dev.berth.agent.isolation.ProcStat} and {@link
 * dev.berth.agent.isolation.ProcessTree} are the small process-control primitives the shell and the
 * execution runner share; {@link dev.berth.agent.isolation.PtyNative} keeps pty4j's native library
 * (behind both the PTY and the signals) in one folder per user instead of a new temp directory per
 * run.
 */
@NullMarked
package dev.berth.agent.isolation;

import org.jspecify.annotations.NullMarked;
