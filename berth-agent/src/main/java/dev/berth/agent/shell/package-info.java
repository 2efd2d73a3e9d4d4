/**
 * The session's workload: one interactive shell on its own PTY.
 *
 * <p>{@link dev.berth.agent.shell.ShellProcess} starts the shell of a {@link
 * dev.berth.agent.shell.ShellSpec} under a launch plan, pumps every output byte into an {@link
 * dev.berth.agent.output.OutputSink}, queues input so that a write never waits for a command,
 * reports whether a foreground job holds the terminal, and stops the whole session with SIGHUP and
 * then SIGKILL. A shell that exits is reported through {@code onExit()} and never restarted here;
 * input afterwards fails with {@link dev.berth.agent.shell.ShellExitedException} ("no live shell").
 */
package dev.berth.agent.shell;
