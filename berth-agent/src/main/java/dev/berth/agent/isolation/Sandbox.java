package dev.berth.agent.isolation;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The confinement mechanisms this host offers, detected once at start, and the factory of each
 * session's {@link LaunchPlan}.
 *
 * <p>Detection is by trying, not by looking: a cgroup directory is created, a whole launch (user,
 * mount, PID and network namespaces, the filesystem view, the seccomp filter, the drop to a session
 * uid) runs {@code /bin/true} once, and an {@code egress} network is brought up and torn down. What
 * fails is reported as not in force ({@link Isolation#weaknesses()}), and sessions still run; the
 * control plane's {@code --require-isolation} refuses them instead.
 */
public final class Sandbox {
  private static final Logger LOG = LoggerFactory.getLogger(Sandbox.class);
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,127}");
  private static final List<String> NAMESPACES =
      List.of("user", "mount", "pid", "ipc", "uts", "cgroup", "net");

  private final Optional<CgroupLayout> cgroups;
  private final SandboxTools tools;
  private final boolean confines;
  private final Optional<SeccompFilter> seccomp;
  private final NetworkMode network;
  private final SandboxSettings settings;
  private final Identity identity;
  private final UidClaims claims;
  private final StateDisks disks;
  private final List<String> viewReport;

  /** The agent's own uid and gid, and whether it is root. */
  record Identity(long uid, long gid) {
    boolean root() {
      return uid == 0;
    }

    static Identity ofThisProcess() {
      try {
        long uid = -1;
        long gid = -1;
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
          if (line.startsWith("Uid:")) {
            uid = Long.parseLong(line.split("\\s+")[2]);
          } else if (line.startsWith("Gid:")) {
            gid = Long.parseLong(line.split("\\s+")[2]);
          }
        }
        return new Identity(uid, gid);
      } catch (IOException | RuntimeException e) {
        return new Identity(-1, -1);
      }
    }
  }

  private Sandbox(
      Optional<CgroupLayout> cgroups,
      SandboxTools tools,
      boolean confines,
      Optional<SeccompFilter> seccomp,
      NetworkMode network,
      SandboxSettings settings,
      Identity identity,
      UidClaims claims,
      StateDisks disks) {
    this.cgroups = cgroups;
    this.tools = tools;
    this.confines = confines;
    this.seccomp = seccomp;
    this.network = network;
    this.settings = settings;
    this.identity = identity;
    this.claims = claims;
    this.disks = disks;
    // The view a session would get, reported for runtimes without a plan (and GET /v1/isolation):
    // made once, since it lists /etc/ssh and stats every mask.
    this.viewReport =
        confines
            ? new FilesystemView(
                    WritablePaths.of(SessionUser.HOME).withTmp(Path.of("/tmp")),
                    settings.binds(),
                    settings.masks())
                .report()
            : List.of();
  }

  /** Detects what this host can enforce with the default settings (tests). */
  public static Sandbox detect(Path cgroupRoot) {
    return detect(
        cgroupRoot,
        SandboxSettings.defaults(),
        Path.of(System.getProperty("java.io.tmpdir"), "berth-uids"));
  }

  /**
   * Detects what this host can enforce.
   *
   * @param cgroupRoot where the cgroup filesystems are mounted, usually {@code /sys/fs/cgroup}
   * @param settings what the operator asks for
   * @param uidClaims where a root agent records which host uid each session has
   * @throws IllegalStateException when {@code egress} was asked for explicitly and cannot work
   */
  public static Sandbox detect(Path cgroupRoot, SandboxSettings settings, Path uidClaims) {
    List<String> self;
    try {
      self = Files.readAllLines(Path.of("/proc/self/cgroup"));
    } catch (IOException e) {
      self = List.of();
    }
    Identity identity = Identity.ofThisProcess();
    SandboxTools tools = SandboxTools.find();
    Optional<CgroupLayout> cgroups = CgroupLayout.detect(cgroupRoot, self);
    UidClaims claims = new UidClaims(uidClaims);
    Optional<SeccompFilter> seccomp = SeccompFilter.forThisMachine();
    StateDisks disks =
        StateDisks.detect(
            identity.root(),
            identity.uid(),
            identity.gid(),
            Path.of(System.getProperty("java.io.tmpdir")));
    Sandbox candidate =
        new Sandbox(
            cgroups, tools, true, seccomp, NetworkMode.NONE, settings, identity, claims, disks);
    boolean confines = tools.bwrap().isPresent() && candidate.launchWorks();
    NetworkMode network = NetworkMode.NONE;
    if (confines) {
      network = candidate.chooseNetwork(settings.network());
    } else if (settings.network().isPresent()) {
      LOG.warn(
          "--network {} asked for, but this host cannot sandbox sessions (see the isolation"
              + " table): sessions run on the host's network",
          settings.network().get().wireName());
    }
    Sandbox sandbox =
        new Sandbox(cgroups, tools, confines, seccomp, network, settings, identity, claims, disks);
    LOG.info("session isolation on this host: {}", sandbox.isolation());
    return sandbox;
  }

  /** No cgroup and no namespaces: only the file size limit applies. */
  public static Sandbox none() {
    return new Sandbox(
        Optional.empty(),
        SandboxTools.find().withoutBwrap(),
        false,
        Optional.empty(),
        NetworkMode.NONE,
        SandboxSettings.defaults(),
        Identity.ofThisProcess(),
        new UidClaims(Path.of(System.getProperty("java.io.tmpdir"), "berth-uids")),
        StateDisks.none());
  }

  /** The same host without bwrap: cgroups (if any) but no namespaces. */
  public Sandbox withoutNamespaces() {
    return new Sandbox(
        cgroups,
        tools.withoutBwrap(),
        false,
        Optional.empty(),
        NetworkMode.NONE,
        settings,
        identity,
        claims,
        disks);
  }

  /**
   * Ends what a previous agent left of the plans {@code names} when it died with sessions running:
   * the networks' holders and slirp4netns (they are not the agent's children's children, so nothing
   * takes them down with it), any workload process that escaped, and their host uids' claims. One
   * pass over {@code /proc} and one over the claims, however many plans.
   */
  public void reclaim(Collection<String> names) {
    ProcessTree.carryingAny(
            List.of(LaunchPlan.MARKER_VARIABLE, SessionNetwork.MARKER_VARIABLE), names)
        .forEach(ProcessHandle::destroyForcibly);
    if (identity.root()) {
      claims.releaseAll(names);
    }
  }

  /** How this host gives each runtime's state a filesystem of its cap's size. */
  public StateDisks disks() {
    return disks;
  }

  /** Whether sessions run in the sandbox's own view (and their paths are in-sandbox paths). */
  public boolean confines() {
    return confines;
  }

  /** What a session launched now would run under, with the default limits. */
  public Isolation isolation() {
    return isolation(ResourceLimits.defaults());
  }

  /** What a session launched now with {@code limits} would run under. */
  public Isolation isolation(ResourceLimits limits) {
    boolean cpu = cgroups.map(CgroupLayout::cpu).orElse(false);
    SessionUser user =
        confines
            ? SessionUser.mappedTo(
                identity.root() ? -1 : identity.uid(),
                identity.root() ? -1 : identity.gid(),
                identity.root())
            : new SessionUser(
                (int) identity.uid(), "(the agent's user)", identity.uid(), identity.gid(), false);
    return new Isolation(
        confines ? "bwrap" : "none",
        confines ? NAMESPACES : List.of(),
        cgroups.map(CgroupLayout::version).orElse("none"),
        limits,
        cpu,
        disks.kind().wireName(),
        viewReport,
        user,
        new Isolation.Network(confines ? network.wireName() : "host", List.of()),
        new Isolation.Seccomp(
            confines && seccomp.isPresent() ? "filter" : "none",
            confines ? seccomp.map(SeccompFilter::denied).orElse(List.of()) : List.of()),
        weaknesses(cpu));
  }

  private List<String> weaknesses(boolean cpu) {
    List<String> weak = new ArrayList<>();
    if (!confines) {
      weak.add(
          tools.bwrap().isEmpty()
              ? "no sandbox (bubblewrap is not installed): sessions see the host's files,"
                  + " processes and network as the agent's user"
              : "no sandbox (user namespaces do not work here): sessions see the host's files,"
                  + " processes and network as the agent's user");
    } else if (seccomp.isEmpty()) {
      weak.add("no seccomp filter for " + System.getProperty("os.arch"));
    }
    if (cgroups.isEmpty()) {
      weak.add(
          "no writable cgroup: process, memory and CPU limits are not enforced, and a snapshot"
              + " stops the session with signals, which a session can defeat");
    } else {
      if (!cpu) {
        weak.add("no cpu cgroup controller: CPU use is not limited");
      }
      if (!cgroups.get().freezer()) {
        weak.add(
            "no cgroup freezer: a snapshot stops the session with signals, which a session can"
                + " defeat");
      }
    }
    if (disks.kind() == StateDisks.Kind.NONE) {
      weak.add(
          identity.root()
              ? "no disk cap: loop mounts do not work here (e2fsprogs and a loop device are"
                  + " needed), so a session can fill the host's disk"
              : "no disk cap: an unprivileged node needs fuse2fs, fusermount3 (fuse3) and a"
                  + " writable /dev/fuse, so a session can fill the host's disk");
    }
    return weak;
  }

  /**
   * Prepares one session's confinement: creates its cgroup (when cgroups are available) and returns
   * the argv that runs {@code command} inside it. Close the plan once every process it launched is
   * gone, to remove the cgroup.
   *
   * @param name unique on this host, e.g. the runtime name; letters, digits, {@code _ . -}
   * @param command the workload, e.g. {@code [/bin/bash]}
   * @param stateDir the one directory the workload may write (with a private {@code /tmp}) when
   *     bwrap is in force; created when missing
   * @throws IllegalArgumentException when the name, command or directory is unusable
   * @throws IllegalStateException when a cgroup of that name still holds processes
   * @throws UncheckedIOException when the cgroup or directory cannot be created
   */
  public LaunchPlan plan(String name, List<String> command, Path stateDir, ResourceLimits limits) {
    return plan(name, command, WritablePaths.of(stateDir), limits);
  }

  /**
   * Like {@link #plan(String, List, Path, ResourceLimits)} with several writable directories and
   * perhaps a {@code /tmp} of the session's own; every one of them is created when missing.
   */
  public LaunchPlan plan(
      String name, List<String> command, WritablePaths writable, ResourceLimits limits) {
    return plan(name, command, writable, limits, Optional.empty());
  }

  /**
   * Like {@link #plan(String, List, WritablePaths, ResourceLimits)} with the session's network
   * narrowed to at most {@code networkLimit} (a tenant granted {@code none} on an {@code egress}
   * host).
   */
  public LaunchPlan plan(
      String name,
      List<String> command,
      WritablePaths writable,
      ResourceLimits limits,
      Optional<NetworkMode> networkLimit) {
    return plan(name, command, writable, limits, networkLimit, Optional.empty(), List.of());
  }

  /**
   * The plan of an agent session: confined like a shell's, on the {@code proxy} network, where
   * {@code 127.0.0.1:8091} leads to the credential proxy listening on {@code proxySocket} and
   * nothing else is reachable; {@code cliBinds} show the CLI's installation read-only. On a host
   * that does not confine, the plan is unconfined and the proxy must listen on the host's loopback
   * instead.
   *
   * @throws IllegalStateException when the host confines but lacks what the proxy network needs
   */
  public LaunchPlan agentPlan(
      String name,
      List<String> command,
      WritablePaths writable,
      ResourceLimits limits,
      Path proxySocket,
      List<SandboxBind> cliBinds) {
    if (confines && !tools.canProxy()) {
      throw new IllegalStateException(
          "an agent session needs unshare, nsenter, ip and socat to reach its credential proxy;"
              + " install util-linux, iproute2 and socat");
    }
    return plan(
        name, command, writable, limits, Optional.empty(), Optional.of(proxySocket), cliBinds);
  }

  private LaunchPlan plan(
      String name,
      List<String> command,
      WritablePaths writable,
      ResourceLimits limits,
      Optional<NetworkMode> networkLimit,
      Optional<Path> proxySocket,
      List<SandboxBind> extraBinds) {
    Objects.requireNonNull(limits, "limits");
    if (name == null || !NAME.matcher(name).matches()) {
      throw new IllegalArgumentException(
          "plan name must be 1-128 letters, digits, '_', '.' or '-', starting with a letter or"
              + " digit, was \""
              + name
              + "\"");
    }
    if (command.isEmpty()) {
      throw new IllegalArgumentException("plan " + name + " needs a command");
    }
    for (Path dir : writable.all()) {
      try {
        Files.createDirectories(dir);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot create state dir " + dir, e);
      }
    }
    Optional<Cgroup> cgroup = cgroups.map(layout -> Cgroup.create(layout, name, limits));
    if (!confines) {
      return new LaunchPlan(name, command, writable, isolation(limits), cgroup, Optional.empty());
    }
    NetworkMode mode =
        proxySocket.isPresent()
            ? NetworkMode.PROXY
            : networkLimit.orElse(network) == NetworkMode.NONE ? NetworkMode.NONE : network;
    try {
      LaunchPlan.Confinement confinement = confine(name, writable, mode, proxySocket, extraBinds);
      Isolation isolation =
          isolation(limits)
              .launched(
                  confinement.view().report(),
                  confinement.user(),
                  new Isolation.Network(mode.wireName(), confinement.network().blocked()));
      return new LaunchPlan(name, command, writable, isolation, cgroup, Optional.of(confinement));
    } catch (RuntimeException e) {
      cgroup.ifPresent(Cgroup::remove);
      throw e;
    }
  }

  private LaunchPlan.Confinement confine(
      String name,
      WritablePaths writable,
      NetworkMode mode,
      Optional<Path> proxySocket,
      List<SandboxBind> extraBinds) {
    Path files;
    try {
      files = Files.createTempDirectory("berth-sandbox-");
      // The session's uid reads these (its /etc files) through the staged bind: nothing secret.
      Files.setPosixFilePermissions(files, PosixFilePermissions.fromString("rwxr-xr-x"));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create the sandbox files of " + name, e);
    }
    FilesystemView.writeFiles(files, mode);
    Optional<Path> program = seccomp.map(filter -> filter.writeTo(files.resolve("seccomp.bpf")));
    SessionUser user;
    Runnable release;
    if (identity.root()) {
      long uid = claims.claim(name);
      user = SessionUser.mappedTo(uid, uid, true);
      release = () -> claims.release(name, uid);
      for (Path dir : writable.all()) {
        chownTree(dir, uid);
      }
    } else {
      user = SessionUser.mappedTo(identity.uid(), identity.gid(), false);
      release = () -> {};
    }
    SessionNetwork sessionNetwork;
    try {
      sessionNetwork =
          switch (mode) {
            case EGRESS -> SessionNetwork.egress(name, tools, identity.root(), List.of());
            case PROXY ->
                SessionNetwork.proxyOnly(name, tools, identity.root(), proxySocket.orElseThrow());
            case NONE -> SessionNetwork.none();
          };
    } catch (RuntimeException e) {
      release.run();
      throw e;
    }
    return new LaunchPlan.Confinement(
        tools,
        new FilesystemView(
            writable,
            java.util.stream.Stream.concat(settings.binds().stream(), extraBinds.stream()).toList(),
            settings.masks()),
        files,
        program,
        user,
        sessionNetwork,
        identity.root(),
        release);
  }

  /**
   * Gives the session's uid its own files (a root agent wrote them, restoring an archive, or a
   * previous incarnation had another uid). Symlinks are changed themselves, never followed: the
   * tree was written by the workload.
   */
  private static void chownTree(Path root, long uid) {
    try {
      Files.walkFileTree(
          root,
          new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs)
                throws IOException {
              chown(dir, uid);
              return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs)
                throws IOException {
              chown(file, uid);
              return FileVisitResult.CONTINUE;
            }
          });
    } catch (IOException e) {
      throw new UncheckedIOException("cannot give " + root + " to the session's uid " + uid, e);
    }
  }

  static void chown(Path path, long uid) throws IOException {
    Files.setAttribute(path, "unix:uid", (int) uid, LinkOption.NOFOLLOW_LINKS);
    Files.setAttribute(path, "unix:gid", (int) uid, LinkOption.NOFOLLOW_LINKS);
  }

  @Override
  public String toString() {
    Isolation isolation = isolation();
    return "Sandbox[sandbox="
        + isolation.sandbox()
        + ", cgroup="
        + isolation.cgroup()
        + ", network="
        + isolation.network().mode()
        + "]";
  }

  private NetworkMode chooseNetwork(Optional<NetworkMode> asked) {
    if (asked.equals(Optional.of(NetworkMode.NONE))) {
      return NetworkMode.NONE;
    }
    Optional<String> failure = egressFailure();
    if (failure.isEmpty()) {
      return NetworkMode.EGRESS;
    }
    if (asked.isPresent()) {
      throw new IllegalStateException(
          "--network egress was asked for, but this host cannot give a session outbound"
              + " network: "
              + failure.get()
              + "; install slirp4netns, iproute2 and nftables, or start with --network none");
    }
    LOG.info("sessions get no outbound network (network none): {}", failure.get());
    return NetworkMode.NONE;
  }

  private Optional<String> egressFailure() {
    if (!tools.canEgress()) {
      return Optional.of("slirp4netns, ip, nft, unshare or nsenter is not installed");
    }
    try {
      SessionNetwork.egress(
              "berth-probe-" + ProcessHandle.current().pid(), tools, identity.root(), List.of())
          .close();
      return Optional.empty();
    } catch (RuntimeException e) {
      return Optional.of(String.valueOf(e.getMessage()));
    }
  }

  /** Runs {@code /bin/true} through a whole launch, as a session would. */
  private boolean launchWorks() {
    String probe = "berth-probe-" + ProcessHandle.current().pid();
    Path scratch;
    try {
      scratch = Files.createTempDirectory("berth-probe-");
    } catch (IOException e) {
      return false;
    }
    try (LaunchPlan plan =
        plan(
            probe,
            List.of("/bin/true"),
            WritablePaths.of(scratch.resolve("home"))
                .withTarget(scratch.resolve("home"), SessionUser.HOME),
            ResourceLimits.defaults())) {
      Process process =
          new ProcessBuilder(plan.argv())
              .directory(plan.spawnDirectory(Path.of("/")).toFile())
              .redirectErrorStream(true)
              .start();
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        LOG.warn("the sandbox probe did not finish within 10 s: sessions run unsandboxed");
        return false;
      }
      String output =
          new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
      if (process.exitValue() != 0) {
        LOG.warn(
            "the sandbox probe failed ({}): sessions run unsandboxed: {}",
            process.exitValue(),
            output);
        return false;
      }
      return true;
    } catch (IOException | RuntimeException e) {
      LOG.warn("the sandbox probe failed: sessions run unsandboxed", e);
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    } finally {
      ScratchDirectories.delete(scratch);
    }
  }
}
