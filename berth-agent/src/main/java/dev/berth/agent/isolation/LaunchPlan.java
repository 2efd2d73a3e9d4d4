package dev.berth.agent.isolation;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

/**
 * One session's confinement: the argv that starts a command inside it, and the means to kill
 * everything inside it and to remove it. The shell and every execution of a session share one plan
 * (one cgroup, one process budget); each launch gets its own bwrap instance.
 *
 * <h2>How a process gets in</h2>
 *
 * <p>The argv starts with a tiny POSIX {@code sh} script that sets RLIMIT_FSIZE, writes its own pid
 * into the cgroup's {@code cgroup.procs} files and then {@code exec}s the rest: the process is in
 * the cgroup before the workload's first instruction, so no fork can escape it. Next comes bwrap
 * (when in force), whose argv puts the whole filesystem read-only, the plan's {@link WritablePaths}
 * writable, a private {@code /tmp} (the plan's own directory, shared by the shell and its
 * executions and kept with the state; or else a tmpfs per launch, counted against the memory
 * limit), a minimal {@code /dev}, and new mount, PID and IPC namespaces. It keeps the session and
 * controlling terminal (no {@code --new-session}): the shell's job control needs the PTY as its
 * controlling terminal, and bwrap makes it visible inside as {@code /dev/console}.
 *
 * <h2>Finding the processes again</h2>
 *
 * <p>Every launched process carries {@code BERTH_RUNTIME=<name>} in its environment. Killing uses
 * three nets, widest first: the cgroup, the PID namespace (bwrap's init dies last and takes the
 * namespace with it) and a scan for that variable, which also catches {@code setsid}ed and
 * double-forked processes on hosts with neither cgroups nor bwrap.
 */
public final class LaunchPlan implements AutoCloseable {
  /** The environment variable that tags every process of a plan with the plan's name. */
  public static final String MARKER_VARIABLE = "BERTH_RUNTIME";

  private static final long KILL_DEADLINE_NANOS = TimeUnit.SECONDS.toNanos(5);

  private final String name;
  private final List<String> command;
  private final WritablePaths writable;
  private final Isolation isolation;
  private final Optional<Cgroup> cgroup;
  private final Optional<Path> bwrap;
  private final AtomicBoolean closed = new AtomicBoolean();

  LaunchPlan(
      String name,
      List<String> command,
      WritablePaths writable,
      Isolation isolation,
      Optional<Cgroup> cgroup,
      Optional<Path> bwrap) {
    this.name = name;
    this.command = List.copyOf(command);
    this.writable = writable;
    this.isolation = isolation;
    this.cgroup = cgroup;
    this.bwrap = bwrap;
  }

  public String name() {
    return name;
  }

  /** The command this plan was made for; {@link #argv()} runs it. */
  public List<String> command() {
    return command;
  }

  /** The first writable directory: the workload's state directory. */
  public Path stateDir() {
    return writable.stateDir();
  }

  /** What the workload may write when bwrap is in force. */
  public WritablePaths writable() {
    return writable;
  }

  /** What is in force for processes launched with this plan. */
  public Isolation isolation() {
    return isolation;
  }

  /** The argv that runs {@link #command()} confined. */
  public List<String> argv() {
    return wrap(command);
  }

  /**
   * The argv that runs {@code other} under this plan's confinement: the same cgroup, limits and
   * writable paths, and a bwrap instance of its own (its own PID namespace; its own {@code /tmp}
   * too unless the plan binds a directory there).
   */
  public List<String> wrap(List<String> other) {
    if (other.isEmpty()) {
      throw new IllegalArgumentException("plan " + name + ": nothing to run");
    }
    List<String> argv = new ArrayList<>(List.of("/bin/sh", "-c", enterScript(), "berth-enter"));
    bwrap.ifPresent(
        path -> {
          argv.addAll(bwrapArguments(path, writable));
          argv.add("--");
        });
    argv.addAll(other);
    return List.copyOf(argv);
  }

  /** Variables to add to every launched process's environment (the plan's tag). */
  public Map<String, String> environment() {
    return Map.of(MARKER_VARIABLE, name);
  }

  /**
   * How many process levels lie between the spawned process and the workload: bwrap forks its
   * namespace init, which forks the command, so the workload is two levels down; otherwise the
   * launcher {@code exec}s the workload and it is the spawned process itself.
   */
  public int workloadDepth() {
    return bwrap.isPresent() ? 2 : 0;
  }

  /** Every process of this plan still running: the cgroup's members and every tagged process. */
  public Set<Long> processes() {
    Set<Long> pids = new TreeSet<>();
    cgroup.ifPresent(c -> pids.addAll(c.pids()));
    pids.addAll(ProcessTree.running(ProcessTree.carrying(MARKER_VARIABLE, name).stream()));
    return pids;
  }

  /**
   * SIGKILLs every process of this plan, shell and executions alike, and returns once none is left
   * (or after five seconds, when something keeps escaping). The plan stays usable.
   */
  public void killAll() {
    cgroup.ifPresent(Cgroup::kill);
    long deadline = System.nanoTime() + KILL_DEADLINE_NANOS;
    List<ProcessHandle> tagged = ProcessTree.carrying(MARKER_VARIABLE, name);
    while (!ProcessTree.running(tagged.stream()).isEmpty() && System.nanoTime() < deadline) {
      tagged.forEach(ProcessHandle::destroyForcibly);
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
      tagged = ProcessTree.carrying(MARKER_VARIABLE, name);
    }
  }

  /** Kills whatever is left and removes the cgroup. Idempotent. */
  @Override
  public void close() {
    if (closed.getAndSet(true)) {
      return;
    }
    killAll();
    cgroup.ifPresent(Cgroup::remove);
  }

  /** The cgroup's directories (one on v2; pids then memory on v1), empty without cgroups. */
  public List<Path> cgroupDirectories() {
    return cgroup.map(Cgroup::directories).orElse(List.of());
  }

  private String enterScript() {
    StringBuilder script = new StringBuilder();
    long blocks = Math.max(1, isolation.limits().maxFileSizeBytes() / 512);
    script.append("ulimit -f ").append(blocks).append(" || exit 125\n");
    cgroup.ifPresent(
        c ->
            c.procsFiles()
                .forEach(
                    procs ->
                        script
                            .append("echo $$ > ")
                            .append(quote(procs.toString()))
                            .append(" || exit 125\n")));
    return script.append("exec \"$@\"\n").toString();
  }

  /**
   * bwrap's flags for a workload that may write {@code writable}. {@code /tmp} comes before the
   * other directories: bound after them, it would hide any of them that lies under {@code /tmp}.
   * (bwrap then creates such a directory's mount point inside the session's {@code /tmp}: empty
   * directories named like the host's path, which only a state kept under {@code /tmp} shows.)
   */
  static List<String> bwrapArguments(Path bwrap, WritablePaths writable) {
    List<String> argv = new ArrayList<>(List.of(bwrap.toString()));
    argv.addAll(List.of("--ro-bind", "/", "/"));
    argv.addAll(List.of("--dev", "/dev", "--proc", "/proc"));
    writable
        .tmp()
        .ifPresentOrElse(
            tmp -> argv.addAll(List.of("--bind", tmp.toString(), "/tmp")),
            () -> argv.addAll(List.of("--tmpfs", "/tmp")));
    for (Path dir : writable.directories()) {
      argv.addAll(List.of("--bind", dir.toString(), dir.toString()));
    }
    argv.addAll(List.of("--unshare-pid", "--unshare-ipc", "--die-with-parent"));
    return List.copyOf(argv);
  }

  private static String quote(String value) {
    return "'" + value.replace("'", "'\\''") + "'";
  }
}
