/**
 * The session's workload: one interactive shell on its own PTY, and what of it survives a snapshot.
 *
 * <p>{@link dev.berth.agent.shell.ShellProcess} starts the shell of a {@link
 * dev.berth.agent.shell.ShellSpec} under a launch plan, pumps every output byte into an {@link
 * dev.berth.agent.output.OutputSink}, queues input so that a write never waits for a command,
 * reports whether a foreground job holds the terminal, and stops the whole session with SIGHUP and
 * then SIGKILL. A shell that exits is reported through {@code onExit()} and never restarted here;
 * input afterwards fails with {@link dev.berth.agent.shell.ShellExitedException} ("no live shell").
 *
 * <h2>Shell state</h2>
 *
 * <p>A snapshot keeps files, not processes: a restored shell is a fresh bash in the restored
 * runtime directory. {@link dev.berth.agent.shell.ShellState} is the bash integration that makes it
 * come back as the one before: an rcfile the agent owns captures the environment, shell variables,
 * functions, aliases, shell options, umask, working directory and history into {@code shell-state/}
 * at every prompt and on request, and restores the newest complete capture when a shell starts on a
 * directory that has one. What is never restored: running processes and jobs, traps, the directory
 * stack, completion specs, open file descriptors, terminal modes, and the line being typed. A
 * restore prints one line ({@code [berth] session restored; running processes were not preserved})
 * and nothing else; a capture that cannot be read starts a clean shell with a one-line notice
 * instead, and never keeps the shell from starting.
 *
 * <p>For the runtime this means three writable directories under the sandbox ({@code home/}, {@code
 * tmp/} as {@code /tmp}, {@code shell-state/}), all three part of what a snapshot archives. Paths
 * under the runtime directory at capture time (the home, the history file, a working directory in
 * the home) are moved to the directory the state is restored in, which is usually another one: the
 * rewrite is textual, on the saved root followed by {@code /}, a quote, {@code :}, a blank or the
 * end of a line.
 *
 * <p>Limits, by design: a capture is as recent as the last prompt unless the shell answers {@link
 * dev.berth.agent.shell.ShellState#capture} (it does at the prompt, within milliseconds; not while
 * a foreground job runs, nor when the user replaced the SIGUSR1 trap or removed the WINCH trap);
 * and the captures at the prompt stop when the user unsets {@code PROMPT_COMMAND} or assigns it a
 * new array (assigning it a string, as most prompt tools do, keeps the capture). A state that a
 * user writes into {@code shell-state/} themselves is evaluated as bash code by their own next
 * shell, in their own sandbox. Other shells than bash run without the integration and keep only
 * their files.
 */
@NullMarked
package dev.berth.agent.shell;

import org.jspecify.annotations.NullMarked;
