package dev.berth.agent.shell;

import com.pty4j.PtyProcess;
import com.pty4j.PtyProcessBuilder;
import com.pty4j.WinSize;
import dev.berth.agent.isolation.LaunchPlan;
import dev.berth.agent.isolation.ProcStat;
import dev.berth.agent.isolation.ProcessTree;
import dev.berth.agent.isolation.PtyNative;
import dev.berth.agent.isolation.Signals;
import dev.berth.agent.output.OutputSink;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One interactive shell on its own PTY: the session's workload.
 *
 * <h2>Processes</h2>
 *
 * <p>pty4j forks, calls {@code setsid} and makes the PTY the controlling terminal, then runs the
 * launch plan's argv: the spawned process is a session leader. Without bwrap it {@code exec}s into
 * the shell, so the shell leads its session and its process group. With bwrap the shell sits two
 * levels down (bwrap, bwrap's namespace init, shell) in the same session, and puts itself in a
 * process group of its own, as every job-control shell does. {@link #pid()} is the shell's pid.
 *
 * <h2>Concurrency</h2>
 *
 * <p>Two threads per shell: the output pump (PTY to sink) and the input writer (queue to PTY).
 * Callers may use every method from any thread. A lock serializes resize and terminate; reads of
 * state go to the kernel ({@code /proc}) or to volatile fields.
 *
 * <h2>Exit</h2>
 *
 * <p>An exit is observed, logged and reported through {@link #onExit()}; nothing restarts the
 * shell. Afterwards input and resize throw {@link ShellExitedException}.
 */
public final class ShellProcess implements AutoCloseable {
  /** The hang-up grace of {@link #close()}: SIGHUP, then SIGKILL after five seconds. */
  public static final Duration DEFAULT_GRACE = Duration.ofSeconds(5);

  static final Duration INPUT_TIMEOUT = Duration.ofSeconds(5);
  private static final Duration DRAIN_TIMEOUT = Duration.ofSeconds(5);
  private static final Logger LOG = LoggerFactory.getLogger(ShellProcess.class);

  private final String session;
  private final PtyProcess process;
  private final long shellPid;
  private final LaunchPlan plan;
  private final InputWriter input;
  private final CompletableFuture<Integer> exit = new CompletableFuture<>();
  private final ReentrantLock lock = new ReentrantLock();
  private volatile int columns;
  private volatile int rows;
  private boolean terminated;

  private ShellProcess(LaunchPlan plan, PtyProcess process, ShellSpec spec) {
    this.session = plan.name();
    this.plan = plan;
    this.process = process;
    this.columns = spec.columns();
    this.rows = spec.rows();
    this.shellPid =
        ProcessTree.descend(process.pid(), plan.workloadDepth(), Duration.ofSeconds(5))
            .orElse(process.pid());
    this.input = InputWriter.start(process.getOutputStream(), session);
  }

  /**
   * Starts {@code spec}'s shell under {@code plan} and pumps its output into {@code sink}.
   *
   * @param plan made for {@code spec.command()}; the caller closes it after the shell is gone
   * @throws IllegalArgumentException when the plan was made for another command
   * @throws UncheckedIOException when the PTY or the process cannot be created
   */
  public static ShellProcess start(ShellSpec spec, LaunchPlan plan, OutputSink sink) {
    if (!plan.command().equals(spec.command())) {
      throw new IllegalArgumentException(
          "plan " + plan.name() + " runs " + plan.command() + ", not " + spec.command());
    }
    PtyNative.prepare();
    Map<String, String> environment = new HashMap<>(spec.environment());
    environment.putAll(plan.environment());
    PtyProcess process;
    try {
      process =
          new PtyProcessBuilder(plan.argv(spec.workingDirectory()).toArray(String[]::new))
              .setEnvironment(environment)
              .setDirectory(plan.spawnDirectory(spec.workingDirectory()).toString())
              .setInitialColumns(spec.columns())
              .setInitialRows(spec.rows())
              .setRedirectErrorStream(true)
              .start();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start the shell of " + plan.name(), e);
    }
    ShellProcess shell = new ShellProcess(plan, process, spec);
    OutputPump.start(process.getInputStream(), sink, shell.session, shell::afterDrain);
    LOG.info("shell of {} started: pid {}, {}", shell.session, shell.shellPid, plan.isolation());
    return shell;
  }

  /** The shell's pid, as the host sees it. */
  public long pid() {
    return shellPid;
  }

  public boolean isAlive() {
    return process.isAlive();
  }

  /** The exit code once the shell has exited; 128+n when signal n ended it. */
  public OptionalInt exitCode() {
    return process.isAlive() ? OptionalInt.empty() : OptionalInt.of(process.exitValue());
  }

  /** Completes with the exit code after the shell exited and its output was drained. */
  public CompletableFuture<Integer> onExit() {
    return exit.copy();
  }

  /**
   * Writes {@code bytes} verbatim to the terminal; a newline runs a command. Returns once the bytes
   * are queued, never waiting for the command. Blocks (up to five seconds) only when four MiB of
   * earlier input are still unread.
   *
   * @throws ShellExitedException when the shell has exited
   * @throws ShellInputBlockedException when the earlier input stayed unread
   */
  public void write(byte[] bytes) {
    if (!process.isAlive() || input.failed()) {
      throw new ShellExitedException(session, exitCode());
    }
    input.submit(bytes, INPUT_TIMEOUT);
  }

  /**
   * Sets the terminal size; the kernel sends SIGWINCH to the foreground job.
   *
   * @throws IllegalArgumentException unless both are within 1..1000
   * @throws ShellExitedException when the shell has exited
   */
  public void resize(int newColumns, int newRows) {
    ShellSpec.checkSize(newColumns, newRows);
    lock.lock();
    try {
      if (!process.isAlive()) {
        throw new ShellExitedException(session, exitCode());
      }
      process.setWinSize(new WinSize(newColumns, newRows));
      columns = newColumns;
      rows = newRows;
    } catch (IllegalStateException e) {
      throw new ShellExitedException(session, exitCode());
    } finally {
      lock.unlock();
    }
  }

  public int columns() {
    return columns;
  }

  public int rows() {
    return rows;
  }

  /**
   * Whether a program runs in the foreground: the terminal's foreground process group is not the
   * shell's own (the shell hands the terminal to each foreground job and takes it back at the
   * prompt). False once the shell has exited.
   */
  public boolean busy() {
    return foregroundGroup().isPresent();
  }

  /** The name of the foreground job's leader while {@link #busy()}, e.g. {@code sleep}. */
  public Optional<String> foregroundCommand() {
    return foregroundGroup().flatMap(ShellProcess::comm);
  }

  private Optional<Long> foregroundGroup() {
    // A shell that exited may have had its pid reused by another process: never read it then.
    if (!process.isAlive()) {
      return Optional.empty();
    }
    return ProcStat.read(shellPid)
        .filter(s -> !s.isZombie() && s.tpgid() > 0 && s.tpgid() != s.pgrp())
        .map(ProcStat::tpgid);
  }

  private static Optional<String> comm(long pid) {
    try {
      return Optional.of(Files.readString(Path.of("/proc", Long.toString(pid), "comm")).strip());
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  /**
   * Stops the shell and everything it started: SIGHUP to the shell's process group (as a terminal
   * hang-up would), up to {@code grace} for it to exit, then SIGKILL to every process left in the
   * session: the process tree as it was before the hang-up and now, the terminal session's members,
   * and every process of the launch plan (its cgroup and tag, executions included). Returns once
   * the output is drained. Idempotent; concurrent callers wait for the first.
   */
  public void terminate(Duration grace) {
    lock.lock();
    try {
      if (!terminated) {
        terminated = true;
        hangUpThenKill(grace);
      }
    } finally {
      lock.unlock();
    }
    awaitDrained();
  }

  /** {@link #terminate(Duration)} with {@link #DEFAULT_GRACE}. */
  @Override
  public void close() {
    terminate(DEFAULT_GRACE);
  }

  private void hangUpThenKill(Duration grace) {
    if (!process.isAlive()) {
      // Exited long ago, perhaps: its pid (and session id) may be another process's by now, so
      // only the launch plan, which knows its own processes, ends what the shell left running.
      plan.killAll();
      LOG.info("shell of {} had exited; its leftovers were ended", session);
      return;
    }
    long sid = process.pid();
    List<ProcessHandle> doomed = new ArrayList<>(ProcessTree.snapshot(sid));
    if (process.isAlive()) {
      hangUp();
      waitForExit(grace);
    }
    doomed.addAll(ProcessTree.snapshot(sid));
    doomed.addAll(ProcessTree.inSession(sid));
    doomed.forEach(ProcessHandle::destroyForcibly);
    plan.killAll();
    LOG.info("shell of {} terminated", session);
  }

  private void hangUp() {
    Optional<ProcStat> stat = ProcStat.read(shellPid);
    if (stat.isPresent() && stat.get().pgrp() == shellPid) {
      Signals.toGroup(shellPid, Signals.SIGHUP);
    } else {
      Signals.toProcess(shellPid, Signals.SIGHUP);
    }
  }

  private void waitForExit(Duration grace) {
    try {
      process.waitFor(grace.toNanos(), TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void awaitDrained() {
    try {
      exit.get(DRAIN_TIMEOUT.toNanos(), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      LOG.warn("output of {} did not end within {} after the kill", session, DRAIN_TIMEOUT);
    } catch (ExecutionException e) {
      LOG.warn("shell of {} ended abnormally", session, e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Runs on the pump thread once the PTY has no more output. */
  private void afterDrain() {
    try {
      int code = process.waitFor();
      input.stop();
      closeQuietly();
      LOG.info("shell of {} exited with code {}", session, code);
      exit.complete(code);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      exit.completeExceptionally(e);
    }
  }

  private void closeQuietly() {
    try {
      process.getInputStream().close();
      process.getOutputStream().close();
    } catch (IOException e) {
      LOG.debug("closing the PTY of {} failed", session, e);
    }
  }
}
