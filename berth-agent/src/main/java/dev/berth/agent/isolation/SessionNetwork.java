package dev.berth.agent.isolation;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * One session's network namespace and what is behind it.
 *
 * <p>{@code none}: bwrap makes the namespace itself ({@code --unshare-net}); it has a loopback and
 * nothing else.
 *
 * <p>{@code egress}: the agent makes the namespace first, with a holder process ({@code unshare
 * --net}, inside a user namespace of its own when the agent is not root) that keeps it alive, and
 * attaches slirp4netns to it: user-mode TCP/IP that turns the session's connections into the
 * agent's own outbound sockets. Before slirp4netns is attached, the namespace gets {@code prohibit}
 * routes for every address of the host, for slirp's own gateway (which would be the host's
 * loopback; {@code --disable-host-loopback} refuses it too) and for the link-local range (cloud
 * metadata services): the control plane, the node and every other session listen on the host's
 * addresses, so a session cannot reach them, while the internet (and other machines) can be. The
 * workload joins the namespace ({@code nsenter}) before bwrap starts it; it has no capability in
 * the namespace's owning user namespace, so it cannot change the routes.
 *
 * <p>{@code proxy} (agent sessions): a holder's namespace with a loopback only, where a forwarder
 * started in it brings the session's credential proxy to {@code 127.0.0.1:8091} ({@link
 * #proxyOnly}).
 *
 * <h2>Nothing outlives the node</h2>
 *
 * <p>These helpers are the node's children, not the workload's. Each ends with the node: its stdin
 * is a pipe only the node writes, which the kernel closes when the node dies. The holder waits for
 * that end of file, slirp4netns exits on it ({@code --exit-fd 0}), and the forwarder's parent waits
 * for it and takes the forwarder along ({@code setpriv --pdeathsig KILL}, tied to that process,
 * never to one of the node's threads). The {@link HelperLedger} records each helper as the
 * backstop.
 */
public final class SessionNetwork implements AutoCloseable {
  /** Tags the holder and slirp4netns with the plan's name, so that a restarted agent finds them. */
  static final String MARKER_VARIABLE = "BERTH_NETWORK";

  private static final long READY_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(10);
  private static final List<String> ALWAYS_BLOCKED = List.of("10.0.2.2/32", "169.254.0.0/16");

  /** The holder's last step: hold the namespace until the node's end of its stdin closes. */
  private static final String HOLD = "exec cat >/dev/null\n";

  private final NetworkMode mode;
  private final Optional<Process> holder;
  private final Optional<Process> slirp;
  private final Optional<Process> forwarder;
  private final List<String> blocked;
  private final boolean userNamespace;
  private final HelperLedger ledger;

  private SessionNetwork(
      NetworkMode mode,
      Optional<Process> holder,
      Optional<Process> slirp,
      Optional<Process> forwarder,
      List<String> blocked,
      boolean userNamespace,
      HelperLedger ledger) {
    this.mode = mode;
    this.holder = holder;
    this.slirp = slirp;
    this.forwarder = forwarder;
    this.blocked = blocked;
    this.userNamespace = userNamespace;
    this.ledger = ledger;
  }

  /** A namespace with a loopback only, made by bwrap. */
  static SessionNetwork none() {
    return new SessionNetwork(
        NetworkMode.NONE,
        Optional.empty(),
        Optional.empty(),
        Optional.empty(),
        List.of(),
        false,
        HelperLedger.none());
  }

  /**
   * Makes the namespace of an {@code egress} session and attaches slirp4netns to it.
   *
   * @param name the plan's name, which tags both processes
   * @param tools where unshare, ip and slirp4netns are
   * @param asRoot whether the agent runs as root (the namespace then needs no user namespace)
   * @param extraBlocked more destinations (CIDR) to refuse
   * @param ledger where the helpers are recorded
   * @throws IllegalStateException when the namespace does not come up
   */
  static SessionNetwork egress(
      String name,
      SandboxTools tools,
      boolean asRoot,
      List<String> extraBlocked,
      HelperLedger ledger) {
    killLeftovers(name);
    List<String> blocked = new ArrayList<>(hostAddresses());
    blocked.addAll(ALWAYS_BLOCKED);
    blocked.addAll(extraBlocked);
    StringBuilder script = new StringBuilder(quote(tools.ip()) + " link set lo up || exit 1\n");
    for (String destination : blocked) {
      script
          .append(quote(tools.ip()))
          .append(" route add prohibit ")
          .append(destination)
          .append(" || exit 1\n");
    }
    script.append(quote(tools.nft())).append(" -f - <<'BERTH_NFT' || exit 1\n");
    script.append(firewall(blocked)).append("BERTH_NFT\n");
    script.append("echo ready\n").append(HOLD);
    List<String> argv = new ArrayList<>(List.of(tools.unshare()));
    if (!asRoot) {
      argv.addAll(List.of("--user", "--map-root-user"));
    }
    argv.addAll(List.of("--net", "/bin/sh", "-c", script.toString(), "berth-netns"));
    Process holder = start(argv, name);
    Process slirp = null;
    try {
      ledger.started(holder, name, "holder");
      awaitLine(holder, "ready", name);
      slirp = start(slirpArgv(tools, holder), name, ProcessBuilder.Redirect.DISCARD);
      ledger.started(slirp, name, "slirp4netns");
      awaitDefaultRoute(holder, slirp, name);
      return new SessionNetwork(
          NetworkMode.EGRESS,
          Optional.of(holder),
          Optional.of(slirp),
          Optional.empty(),
          List.copyOf(blocked),
          !asRoot,
          ledger);
    } catch (RuntimeException e) {
      end(holder, ledger);
      if (slirp != null) {
        end(slirp, ledger);
      }
      throw e;
    }
  }

  private static List<String> slirpArgv(SandboxTools tools, Process holder) {
    return List.of(
        tools.slirp4netns(),
        "--configure",
        "--mtu=65520",
        "--disable-host-loopback",
        "--enable-sandbox",
        "--enable-seccomp",
        // Its stdin is the node's pipe: it exits when the node is gone.
        "--exit-fd=0",
        Long.toString(holder.pid()),
        "tap0");
  }

  /**
   * Makes the namespace of an agent session ({@code proxy}): a loopback and nothing else, where
   * {@code 127.0.0.1:8091} leads to the session's credential proxy. The proxy listens on a Unix
   * socket outside the sandbox ({@code proxySocket}); socat, started by the agent in the namespace
   * (not in the sandbox: the workload cannot see it), forwards each connection there. The
   * namespace's socket table does name the socket's bound path, so the proxy binds it through a
   * throwaway alias ({@code SocketAlias} in the proxy package) that says nothing of the host. No
   * route leads anywhere else, so the proxy is all the workload reaches.
   *
   * @throws IllegalStateException when the namespace or the forwarder does not come up
   */
  static SessionNetwork proxyOnly(
      String name, SandboxTools tools, boolean asRoot, Path proxySocket, HelperLedger ledger) {
    killLeftovers(name);
    String script = quote(tools.ip()) + " link set lo up || exit 1\necho ready\n" + HOLD;
    List<String> argv = new ArrayList<>(List.of(tools.unshare()));
    if (!asRoot) {
      argv.addAll(List.of("--user", "--map-root-user"));
    }
    argv.addAll(List.of("--net", "/bin/sh", "-c", script, "berth-netns"));
    Process holder = start(argv, name);
    Process forwarder = null;
    try {
      ledger.started(holder, name, "holder");
      awaitLine(holder, "ready", name);
      // The forwarder dies with its parent, which ends when the node's pipe closes (see above).
      List<String> forward =
          new ArrayList<>(
              List.of(
                  "/bin/sh",
                  "-c",
                  quote(tools.setpriv()) + " --pdeathsig KILL -- \"$@\" &\n" + HOLD,
                  "berth-forward"));
      forward.addAll(List.of(tools.nsenter(), "-t", Long.toString(holder.pid())));
      if (!asRoot) {
        forward.addAll(List.of("-U", "--preserve-credentials"));
      }
      forward.addAll(
          List.of(
              "-n",
              tools.socat(),
              "TCP-LISTEN:" + NetworkMode.PROXY_PORT + ",bind=127.0.0.1,reuseaddr,fork",
              "UNIX-CONNECT:" + proxySocket));
      forwarder = start(forward, name, ProcessBuilder.Redirect.DISCARD);
      ledger.started(forwarder, name, "forwarder");
      awaitListening(holder, forwarder, name);
      return new SessionNetwork(
          NetworkMode.PROXY,
          Optional.of(holder),
          Optional.empty(),
          Optional.of(forwarder),
          List.of(),
          !asRoot,
          ledger);
    } catch (RuntimeException e) {
      end(holder, ledger);
      if (forwarder != null) {
        end(forwarder, ledger);
      }
      throw e;
    }
  }

  /** The forwarder is ready once 127.0.0.1:8091 listens in the namespace. */
  private static void awaitListening(Process holder, Process forwarder, String name) {
    Path sockets = Path.of("/proc", Long.toString(holder.pid()), "net", "tcp");
    String local = String.format("0100007F:%04X", NetworkMode.PROXY_PORT);
    long deadline = System.nanoTime() + READY_TIMEOUT_NANOS;
    while (System.nanoTime() - deadline < 0) {
      try {
        for (String line : Files.readAllLines(sockets)) {
          String[] fields = line.trim().split("\\s+");
          // st 0A is LISTEN.
          if (fields.length > 3 && fields[1].equals(local) && fields[3].equals("0A")) {
            return;
          }
        }
      } catch (IOException e) {
        break;
      }
      if (!forwarder.isAlive() || forwarderExited(forwarder)) {
        break;
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
    }
    throw new IllegalStateException(
        "the credential proxy forwarder of "
            + name
            + (forwarder.isAlive() && !forwarderExited(forwarder)
                ? " did not listen within 10 s"
                : " exited (is socat installed and working?)"));
  }

  /**
   * Whether socat, below the process that waits for the node's end of file, has ended: it is then a
   * zombie child of that process, which never reaps it.
   */
  private static boolean forwarderExited(Process forwarder) {
    return forwarder
        .children()
        .anyMatch(child -> ProcStat.read(child.pid()).map(ProcStat::isZombie).orElse(false));
  }

  public NetworkMode mode() {
    return mode;
  }

  /** The destinations the namespace refuses (CIDR), empty under {@code none}. */
  public List<String> blocked() {
    return blocked;
  }

  /** What goes before bwrap in the launch argv: joining the namespace, under {@code egress}. */
  List<String> enterPrefix(SandboxTools tools) {
    if (holder.isEmpty()) {
      return List.of();
    }
    long pid = holder.get().pid();
    if (!holder.get().isAlive()) {
      throw new IllegalStateException(
          "the network namespace holder (pid " + pid + ") is gone; the session has no network");
    }
    List<String> prefix = new ArrayList<>(List.of(tools.nsenter(), "-t", Long.toString(pid)));
    if (userNamespace) {
      // Into the holder's user namespace as its root (the agent's own uid), which bwrap then maps
      // to the session's uid 1000 in a namespace of its own.
      prefix.addAll(List.of("-U", "--preserve-credentials"));
    }
    prefix.add("-n");
    return prefix;
  }

  /** bwrap's network flag: a fresh namespace under {@code none}, the joined one otherwise. */
  List<String> bwrapFlags() {
    return holder.isEmpty() ? List.of("--unshare-net") : List.of();
  }

  @Override
  public void close() {
    forwarder.ifPresent(p -> end(p, ledger));
    slirp.ifPresent(p -> end(p, ledger));
    holder.ifPresent(p -> end(p, ledger));
  }

  /** SIGKILLs a helper and forgets its record. */
  private static void end(Process helper, HelperLedger ledger) {
    helper.destroyForcibly();
    ledger.ended(helper);
  }

  /** SIGKILLs what a previous agent left of the plan {@code name}'s network. */
  static void killLeftovers(String name) {
    ProcessTree.carrying(MARKER_VARIABLE, name).forEach(ProcessHandle::destroyForcibly);
  }

  private static Process start(List<String> argv, String name) {
    return start(argv, name, ProcessBuilder.Redirect.PIPE);
  }

  /**
   * @param output where the process's output goes: a pipe for the holder, which says once that it
   *     is ready and then prints nothing; nowhere for slirp4netns, which may log for as long as the
   *     session lives and must never block on a pipe no one reads
   */
  private static Process start(List<String> argv, String name, ProcessBuilder.Redirect output) {
    ProcessBuilder builder =
        new ProcessBuilder(argv).redirectErrorStream(true).redirectOutput(output);
    builder.environment().clear();
    builder.environment().put("PATH", "/usr/sbin:/usr/bin:/sbin:/bin");
    builder.environment().put(MARKER_VARIABLE, name);
    try {
      return builder.start();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start " + argv.get(0) + " for " + name, e);
    }
  }

  private static void awaitLine(Process process, String expected, String name) {
    try {
      var reader = process.inputReader();
      String line;
      StringBuilder seen = new StringBuilder();
      while ((line = reader.readLine()) != null) {
        if (line.equals(expected)) {
          return;
        }
        seen.append(line).append('\n');
      }
      throw new IllegalStateException(
          "the network namespace of " + name + " did not come up: " + seen.toString().strip());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the network holder of " + name, e);
    }
  }

  /** slirp4netns configured the namespace when the default route via tap0 appears in it. */
  private static void awaitDefaultRoute(Process holder, Process slirp, String name) {
    Path routes = Path.of("/proc", Long.toString(holder.pid()), "net", "route");
    long deadline = System.nanoTime() + READY_TIMEOUT_NANOS;
    while (System.nanoTime() - deadline < 0) {
      try {
        for (String line : Files.readAllLines(routes)) {
          String[] fields = line.trim().split("\\s+");
          if (fields.length > 1 && fields[0].equals("tap0") && fields[1].equals("00000000")) {
            return;
          }
        }
      } catch (IOException e) {
        break;
      }
      if (!slirp.isAlive()) {
        break;
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
    }
    throw new IllegalStateException(
        "slirp4netns did not configure the network of "
            + name
            + (slirp.isAlive()
                ? " within 10 s"
                : ": it exited with " + slirp.exitValue() + " (run it by hand to see why)"));
  }

  /**
   * The namespace's firewall. Routes alone are no boundary: a socket bound to {@code tap0} ({@code
   * SO_BINDTODEVICE}, {@code IP_PKTINFO}) skips the {@code prohibit} routes, and slirp4netns then
   * delivers what comes out of {@code tap0} to the host's own loopback. So everything leaving
   * through {@code tap0} is filtered: slirp's resolver on port 53 is allowed, the host's loopback,
   * "this network", slirp's own network (its gateway is the host), link-local, multicast, broadcast
   * and every refused destination are rejected, and IPv6 is dropped.
   */
  static String firewall(List<String> blocked) {
    List<String> refused =
        new ArrayList<>(
            List.of(
                "127.0.0.0/8",
                "0.0.0.0/8",
                "10.0.2.0/24",
                "169.254.0.0/16",
                "224.0.0.0/4",
                "255.255.255.255/32"));
    blocked.stream().filter(cidr -> !refused.contains(cidr)).forEach(refused::add);
    return "table inet berth {\n"
        + "  chain out {\n"
        + "    type filter hook output priority 0; policy accept;\n"
        + "    oifname \"tap0\" ip daddr 10.0.2.3 udp dport 53 accept\n"
        + "    oifname \"tap0\" ip daddr 10.0.2.3 tcp dport 53 accept\n"
        + "    oifname \"tap0\" ip daddr { "
        + String.join(", ", refused)
        + " } reject\n"
        + "    oifname \"tap0\" meta nfproto ipv6 drop\n"
        + "  }\n"
        + "}\n";
  }

  /** Every IPv4 address of this host, as {@code a.b.c.d/32}. */
  static List<String> hostAddresses() {
    TreeSet<String> addresses = new TreeSet<>();
    try {
      for (NetworkInterface nic : Collections.list(NetworkInterface.getNetworkInterfaces())) {
        for (InetAddress address : Collections.list(nic.getInetAddresses())) {
          if (address instanceof Inet4Address && !address.isLoopbackAddress()) {
            addresses.add(address.getHostAddress() + "/32");
          }
        }
      }
    } catch (SocketException e) {
      throw new UncheckedIOException("cannot list this host's addresses", e);
    }
    return List.copyOf(addresses);
  }

  private static String quote(String value) {
    return "'" + value.replace("'", "'\\''") + "'";
  }
}
