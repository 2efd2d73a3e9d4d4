package dev.berth.agent.isolation;

import java.nio.file.Files;
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
 * (one cgroup, one process budget, one network namespace, one host uid); each launch gets its own
 * bwrap instance.
 *
 * <h2>How a process gets in</h2>
 *
 * <p>The argv starts with a tiny POSIX {@code sh} script that sets RLIMIT_FSIZE, writes its own pid
 * into the cgroup's {@code cgroup.procs} files and then {@code exec}s the rest: the process is in
 * the cgroup before the workload's first instruction, so no fork can escape it. With a {@link
 * Confinement}, the script then opens the seccomp program as fd 3, joins the session's network
 * namespace under {@code egress} ({@code nsenter}), drops to the session's host uid when the agent
 * is root ({@code setpriv}) and {@code exec}s bwrap, which makes a user namespace (uid 1000 {@code
 * berth} inside, no capabilities, {@code no_new_privs}, no further user namespaces), mount, PID,
 * IPC, UTS and cgroup namespaces (and the network namespace under {@code none}), mounts the {@link
 * FilesystemView} and installs the seccomp filter right before it executes the workload. bwrap
 * keeps the session and controlling terminal (no {@code --new-session}): the shell's job control
 * needs the PTY as its controlling terminal, and bwrap makes it visible inside as {@code
 * /dev/console}. That PTY is the session's own, so what a workload can do with it (inject input
 * with {@code TIOCSTI}) reaches only its own shell.
 *
 * <p>A root agent's private directories ({@code 0700}) are closed to the session's uid, so bwrap
 * could not open its own state to bind it. The script therefore runs in a mount namespace of its
 * own ({@code unshare --mount}), mounts a small tmpfs over {@code /run} there and binds the
 * session's directories into it before it drops to the session's uid: bwrap finds them at those
 * staged paths, and nothing else of the host's private directories becomes reachable.
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
  private static final String STAGE = "/run/berth-stage";
  private static final int SECCOMP_FD = 3;

  /**
   * What bwrap builds around a workload, when bwrap is in force.
   *
   * @param tools the programs to build it with
   * @param view the filesystem view
   * @param files the plan's private files (the sandbox's /etc files, the seccomp program)
   * @param seccomp the seccomp program, when this machine has a filter
   * @param user who the workload runs as
   * @param network the session's network namespace
   * @param asRoot whether the agent is root (it stages the binds and drops to the host uid)
   * @param onClose what to give back when the plan closes (the host uid's claim)
   */
  record Confinement(
      SandboxTools tools,
      FilesystemView view,
      Path files,
      Optional<Path> seccomp,
      SessionUser user,
      SessionNetwork network,
      boolean asRoot,
      Runnable onClose) {}

  private final String name;
  private final List<String> command;
  private final WritablePaths writable;
  private final Isolation isolation;
  private final Optional<Cgroup> cgroup;
  private final Optional<Confinement> confinement;
  private final AtomicBoolean closed = new AtomicBoolean();

  LaunchPlan(
      String name,
      List<String> command,
      WritablePaths writable,
      Isolation isolation,
      Optional<Cgroup> cgroup,
      Optional<Confinement> confinement) {
    this.name = name;
    this.command = List.copyOf(command);
    this.writable = writable;
    this.isolation = isolation;
    this.cgroup = cgroup;
    this.confinement = confinement;
  }

  public String name() {
    return name;
  }

  /** The command this plan was made for; {@link #argv(Path)} runs it. */
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

  /** Whether the workload sees the sandbox's view (its paths are {@link WritablePaths#inside}). */
  public boolean confined() {
    return confinement.isPresent();
  }

  /** The argv that runs {@link #command()} confined, starting in its home. */
  public List<String> argv() {
    return wrap(command, writable.targetOf(writable.stateDir()));
  }

  /** The argv that runs {@link #command()} confined, starting in {@code workingDirectory}. */
  public List<String> argv(Path workingDirectory) {
    return wrap(command, workingDirectory);
  }

  /**
   * The directory to spawn a launch in: the working directory itself without a sandbox (the
   * workload starts there), the host's {@code /} with one (bwrap changes into the working directory
   * inside the view, which may not exist on the host).
   */
  public Path spawnDirectory(Path workingDirectory) {
    return confined() ? Path.of("/") : workingDirectory;
  }

  /**
   * The argv that runs {@code other} under this plan's confinement: the same cgroup, limits,
   * writable paths, network and host uid, and a bwrap instance of its own (its own PID namespace;
   * its own {@code /tmp} too unless the plan binds a directory there).
   *
   * @param workingDirectory where it starts, as the workload sees it
   */
  public List<String> wrap(List<String> other, Path workingDirectory) {
    if (other.isEmpty()) {
      throw new IllegalArgumentException("plan " + name + ": nothing to run");
    }
    List<String> argv = new ArrayList<>();
    if (confinement.isPresent() && confinement.get().asRoot()) {
      argv.addAll(
          List.of(confinement.get().tools().unshare(), "--mount", "--propagation", "private"));
    }
    argv.addAll(List.of("/bin/sh", "-c", enterScript(workingDirectory), "berth-enter"));
    argv.addAll(other);
    return List.copyOf(argv);
  }

  /** {@link #wrap(List, Path)} starting in the workload's home. */
  public List<String> wrap(List<String> other) {
    return wrap(other, writable.targetOf(writable.stateDir()));
  }

  /**
   * Gives {@code paths} (files and directories the agent wrote into the writable directories after
   * the plan was made, such as an agent CLI's managed settings) to the session's host uid, as the
   * plan did with the writable directories themselves. Each path alone, never what is below it: the
   * workload's own files are its already. Nothing to do unless a root agent confines.
   */
  public void giveToWorkload(List<Path> paths) {
    if (confinement.isEmpty() || !confinement.get().asRoot()) {
      return;
    }
    long uid = confinement.get().user().hostUid();
    for (Path path : paths) {
      try {
        Confiner.chown(path, uid);
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(
            "cannot give " + path + " to the session's uid " + uid, e);
      }
    }
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
    return confinement.isPresent() ? 2 : 0;
  }

  /**
   * Stops every process of this plan so that its files do not change: the cgroup's freezer where
   * there is one (atomic, and no member can undo it), else SIGSTOP to each process, which a session
   * can defeat by continuing its own processes from one that was not stopped yet (the isolation
   * report names this weakness).
   */
  public void freeze() {
    if (cgroup.isPresent() && cgroup.get().canFreeze()) {
      cgroup.get().freeze();
    } else {
      processes().forEach(pid -> Signals.toProcess(pid, Signals.SIGSTOP));
    }
  }

  /** Undoes {@link #freeze()}. */
  public void thaw() {
    if (cgroup.isPresent() && cgroup.get().canFreeze()) {
      cgroup.get().thaw();
    }
    processes().forEach(pid -> Signals.toProcess(pid, Signals.SIGCONT));
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

  /** Kills whatever is left, removes the cgroup and ends the network. Idempotent. */
  @Override
  public void close() {
    if (closed.getAndSet(true)) {
      return;
    }
    killAll();
    cgroup.ifPresent(Cgroup::remove);
    confinement.ifPresent(
        c -> {
          c.network().close();
          c.onClose().run();
          ScratchDirectories.delete(c.files());
        });
  }

  /** The cgroup's directories (one on v2; pids then memory on v1), empty without cgroups. */
  public List<Path> cgroupDirectories() {
    return cgroup.map(Cgroup::directories).orElse(List.of());
  }

  private String enterScript(Path workingDirectory) {
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
    if (confinement.isEmpty()) {
      return script.append("exec \"$@\"\n").toString();
    }
    Confinement c = confinement.get();
    List<Path> staged = c.asRoot() ? c.view().stagedSources(c.files()) : List.of();
    appendStaging(script, staged);
    c.seccomp()
        .ifPresent(
            file ->
                script
                    .append("exec ")
                    .append(SECCOMP_FD)
                    .append("< ")
                    .append(quote(file.toString()))
                    .append(" || exit 125\n"));
    List<String> exec = new ArrayList<>(c.network().enterPrefix(c.tools()));
    if (c.asRoot()) {
      exec.addAll(
          List.of(
              c.tools().setpriv(),
              "--reuid",
              Long.toString(c.user().hostUid()),
              "--regid",
              Long.toString(c.user().hostGid()),
              "--clear-groups"));
    }
    exec.addAll(bwrapArguments(c, staged, workingDirectory));
    script.append("exec");
    exec.forEach(arg -> script.append(' ').append(quote(arg)));
    return script.append(" -- \"$@\"\n").toString();
  }

  /** Binds {@code staged} to {@code /run/berth-stage/<i>} on a tmpfs of the script's own. */
  private static void appendStaging(StringBuilder script, List<Path> staged) {
    if (staged.isEmpty()) {
      return;
    }
    script.append("mount -t tmpfs -o mode=0755,size=64k berth-stage /run || exit 125\n");
    for (int i = 0; i < staged.size(); i++) {
      String target = STAGE + "/" + i;
      // A mount point of the source's kind: a directory for a directory, an empty file else.
      script.append(
          Files.isDirectory(staged.get(i))
              ? "mkdir -p " + quote(target)
              : "mkdir -p " + STAGE + " && : > " + quote(target));
      script
          .append(" && mount --bind ")
          .append(quote(staged.get(i).toString()))
          .append(' ')
          .append(quote(target))
          .append(" || exit 125\n");
    }
  }

  private List<String> bwrapArguments(Confinement c, List<Path> staged, Path workingDirectory) {
    List<String> argv = new ArrayList<>(List.of(c.tools().bwrap().orElseThrow()));
    argv.addAll(
        List.of(
            "--unshare-user",
            "--disable-userns",
            "--uid",
            Integer.toString(c.user().uid()),
            "--gid",
            Integer.toString(c.user().uid()),
            "--unshare-pid",
            "--unshare-ipc",
            "--unshare-uts",
            "--unshare-cgroup-try",
            "--hostname",
            "berth",
            "--die-with-parent"));
    argv.addAll(c.network().bwrapFlags());
    c.seccomp().ifPresent(file -> argv.addAll(List.of("--seccomp", Integer.toString(SECCOMP_FD))));
    argv.addAll(c.view().bwrapArguments(c.files(), path -> stagedPath(staged, path)));
    argv.addAll(List.of("--chdir", workingDirectory.toString()));
    return argv;
  }

  /** Where bwrap finds {@code path}: under its staged copy when the agent staged one. */
  private static Path stagedPath(List<Path> staged, Path path) {
    for (int i = 0; i < staged.size(); i++) {
      if (path.startsWith(staged.get(i))) {
        return Path.of(STAGE, Integer.toString(i)).resolve(staged.get(i).relativize(path));
      }
    }
    return path;
  }

  static String quote(String value) {
    return "'" + value.replace("'", "'\\''") + "'";
  }
}
