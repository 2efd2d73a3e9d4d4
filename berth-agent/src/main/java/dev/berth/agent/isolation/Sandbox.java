package dev.berth.agent.isolation;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
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
  private final HostIdentity identity;
  private final UidClaims claims;
  private final StateDisks disks;
  private final Confiner confiner;
  private final HelperLedger helpers;
  private final List<String> viewReport;

  private Sandbox(
      Optional<CgroupLayout> cgroups,
      SandboxTools tools,
      boolean confines,
      Optional<SeccompFilter> seccomp,
      NetworkMode network,
      SandboxSettings settings,
      HostIdentity identity,
      UidClaims claims,
      StateDisks disks,
      HelperLedger helpers) {
    this.cgroups = cgroups;
    this.tools = tools;
    this.confines = confines;
    this.seccomp = seccomp;
    this.network = network;
    this.settings = settings;
    this.identity = identity;
    this.claims = claims;
    this.disks = disks;
    this.helpers = helpers;
    this.confiner = new Confiner(tools, seccomp, settings, identity, claims, helpers);
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
    return detect(cgroupRoot, settings, uidClaims, HelperLedger.none());
  }

  /**
   * As {@link #detect(Path, SandboxSettings, Path)}, recording every helper process the sessions'
   * networks need in {@code helpers}, for the host that opens the same root after this one.
   */
  public static Sandbox detect(
      Path cgroupRoot, SandboxSettings settings, Path uidClaims, HelperLedger helpers) {
    List<String> self;
    try {
      self = Files.readAllLines(Path.of("/proc/self/cgroup"));
    } catch (IOException e) {
      self = List.of();
    }
    HostIdentity identity = HostIdentity.ofThisProcess();
    SandboxTools tools = SandboxTools.find();
    Optional<CgroupLayout> cgroups = CgroupLayout.detect(cgroupRoot, self);
    UidClaims claims = new UidClaims(uidClaims);
    Optional<SeccompFilter> seccomp = SeccompFilter.forThisMachine();
    StateDisks disks =
        StateDiskProbe.detect(
            identity.root(),
            identity.uid(),
            identity.gid(),
            Path.of(System.getProperty("java.io.tmpdir")));
    Sandbox candidate =
        new Sandbox(
            cgroups,
            tools,
            true,
            seccomp,
            NetworkMode.NONE,
            settings,
            identity,
            claims,
            disks,
            helpers);
    boolean confines = tools.bwrap().isPresent() && SandboxProbe.launchWorks(candidate);
    NetworkMode network = NetworkMode.NONE;
    if (confines) {
      network = SandboxProbe.chooseNetwork(settings.network(), tools, identity, helpers);
    } else if (settings.network().isPresent()) {
      LOG.warn(
          "--network {} asked for, but this host cannot sandbox sessions (see the isolation"
              + " table): sessions run on the host's network",
          settings.network().get().wireName());
    }
    Sandbox sandbox =
        new Sandbox(
            cgroups, tools, confines, seccomp, network, settings, identity, claims, disks, helpers);
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
        HostIdentity.ofThisProcess(),
        new UidClaims(Path.of(System.getProperty("java.io.tmpdir"), "berth-uids")),
        StateDisks.none(),
        HelperLedger.none());
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
        disks,
        helpers);
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
        IsolationWeaknesses.of(confines, tools, seccomp, cgroups, disks.kind(), identity.root()));
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
          "an agent session needs unshare, nsenter, setpriv, ip and socat to reach its credential"
              + " proxy;"
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
    requireUsable(name, command, limits);
    createDirectories(writable);
    Optional<Cgroup> cgroup = cgroups.map(layout -> Cgroup.create(layout, name, limits));
    if (!confines) {
      return new LaunchPlan(name, command, writable, isolation(limits), cgroup, Optional.empty());
    }
    NetworkMode mode =
        proxySocket.isPresent()
            ? NetworkMode.PROXY
            : networkLimit.orElse(network) == NetworkMode.NONE ? NetworkMode.NONE : network;
    try {
      LaunchPlan.Confinement confinement =
          confiner.confine(name, writable, mode, proxySocket, extraBinds);
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

  private static void requireUsable(String name, List<String> command, ResourceLimits limits) {
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
  }

  private static void createDirectories(WritablePaths writable) {
    for (Path dir : writable.all()) {
      try {
        Files.createDirectories(dir);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot create state dir " + dir, e);
      }
    }
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
}
