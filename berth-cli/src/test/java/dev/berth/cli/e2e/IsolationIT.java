package dev.berth.cli.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import tools.jackson.databind.JsonNode;

/**
 * The attacker's suite: a tenant with a shell in one session tries to reach what it was not given,
 * through the public API of a real {@code bin/berth server}, with a second tenant's session beside
 * it. Every attack must fail, and the host and the other session must not notice. The same attacks
 * run against a server started as root and one started as an ordinary user (in a cgroup delegated
 * to it), and the network's two modes are both tried; the test host that stands in for the internet
 * is a network namespace of the test's own ({@link TestNetwork}).
 */
class IsolationIT {
  private static final Duration WAIT = Duration.ofSeconds(60);

  /** The attacks; each nested class runs them against its own server. */
  @TestInstance(TestInstance.Lifecycle.PER_CLASS)
  abstract static class Attacks {
    static final String DISK_CAP = "64M";
    ServerProcess server;
    Path dataDir;
    TestNetwork network;
    TestNetwork.Canary canary;
    Api admin;
    Api acme;
    Api globex;
    String attacker;
    String victim;
    long victimSleep;

    /** Starts the server of this variant with {@code arguments}. */
    abstract ServerProcess start(String... arguments);

    /** Whether the node runs as root, and so gives each session a host uid of its own. */
    abstract boolean asRoot();

    abstract int subnet();

    /** Extra cleanup of the variant (its user). */
    void cleanUp() {}

    /**
     * A session's file as the node sees it. An unprivileged node's disks are FUSE mounts, which
     * only their owner may enter (not even root): the test reads them as the node's user.
     */
    String readAsTheNode(Path file) throws IOException {
      return Files.readString(file);
    }

    @BeforeAll
    void startServerAndSessions() {
      // The test host and the canary exist before any session: a session's refused routes are the
      // host's addresses when its network namespace is made.
      network = TestNetwork.create(subnet());
      canary = new TestNetwork.Canary();
      // A small disk cap, so that filling it takes a moment.
      server = start("--max-disk", DISK_CAP);
      admin = new Api(server.baseUrl(), ServerProcess.ADMIN_TOKEN);
      acme = tenant("acme");
      globex = tenant("globex");
      attacker = acme.create("attacker");
      victim = globex.create("victim");
      Shell.Result planted =
          Shell.run(
              globex,
              victim,
              "echo globex-secret > ~/secret; echo globex-output-marker; sleep 7654321 &"
                  + " echo started");
      assertThat(planted.output()).contains("started");
      victimSleep = hostPidOf("7654321");
    }

    @AfterAll
    void stop() {
      try {
        if (server != null) {
          server.close();
          ServerProcess.killNode(dataDir);
        }
      } finally {
        canary.close();
        network.close();
        cleanUp();
      }
    }

    @Test
    void theSessionRunsFullyIsolatedAndSaysSo() {
      JsonNode isolation = acme.get("/sessions/" + attacker + "/runtime").json().path("isolation");

      assertThat(isolation.path("sandbox").asString()).isEqualTo("bwrap");
      assertThat(isolation.path("weaknesses").isEmpty()).as(isolation.toString()).isTrue();
      assertThat(isolation.path("network").path("mode").asString()).isEqualTo(expectedNetwork());
      assertThat(isolation.path("user").path("uid").asInt()).isEqualTo(1000);
      assertThat(isolation.path("user").path("dedicated").asBoolean()).isEqualTo(asRoot());
      assertThat(isolation.path("seccomp").path("mode").asString()).isEqualTo("filter");
      assertThat(isolation.path("filesystem").toString()).contains("rw /home/berth");
      // The node's own disk per runtime: a loop device as root, fuse2fs as an ordinary user.
      assertThat(isolation.path("disk").asString()).isEqualTo(asRoot() ? "loop" : "fuse");
      Shell.Result id = Shell.run(acme, attacker, "id -un; id -u");
      assertThat(id.output()).isEqualTo("berth\n1000\n");
    }

    String expectedNetwork() {
      return "egress";
    }

    @Test
    void cannotReadThePlatformsSecretsOrTheOtherSession() throws IOException {
      Path victimState = runtimeState(victim);
      List<Path> targets =
          List.of(
              dataDir.resolve("admin.token"),
              dataDir.resolve("node").resolve("node.token"),
              dataDir.resolve("berth.db"),
              dataDir.resolve("archives"),
              victimState.resolve("home").resolve("secret"),
              victimState.resolve("output"),
              dataDir);
      for (Path target : targets) {
        Shell.Result read = Shell.run(acme, attacker, "cat " + target + "; ls -la " + target);
        assertThat(read.rc()).as("reading %s: %s", target, read.output()).isNotZero();
        assertThat(read.output()).contains("No such file or directory");
      }
      Shell.Result shadow = Shell.run(acme, attacker, "wc -c < /etc/shadow; ls -A /root | wc -l");
      assertThat(shadow.output()).as("/etc/shadow masked, /root empty").isEqualTo("0\n0\n");
      Shell.Result search =
          Shell.run(
              acme,
              attacker,
              "grep -rl --exclude-dir=proc --exclude-dir=dev --exclude-dir=usr"
                  + " -e 'globex''-secret' -e 'e2e-admin''-token' / 2>/dev/null; echo searched");
      assertThat(search.output()).isEqualTo("searched\n");
      assertThat(readAsTheNode(victimState.resolve("home").resolve("secret")))
          .isEqualTo("globex-secret\n");
    }

    @Test
    void writesNothingButItsHomeAndTmp() throws IOException {
      String probe = "probe-" + ThreadLocalRandom.current().nextInt(1 << 30);
      for (String dir : List.of("/", "/usr", "/etc", "/var", "/root", "/run", "/home", "/bin")) {
        Shell.Result write = Shell.run(acme, attacker, "touch " + dir + "/" + probe);
        assertThat(write.rc()).as("writing %s: %s", dir, write.output()).isNotZero();
        assertThat(Path.of(dir, probe)).doesNotExist();
      }
      Shell.Result own = Shell.run(acme, attacker, "touch ~/" + probe + " /tmp/" + probe);
      assertThat(own.rc()).as(own.output()).isZero();
      assertThat(readAsTheNode(runtimeState(attacker).resolve("home").resolve(probe))).isEmpty();
      assertThat(readAsTheNode(runtimeState(attacker).resolve("tmp").resolve(probe))).isEmpty();
      assertThat(Path.of("/tmp", probe)).as("the host's /tmp").doesNotExist();
    }

    @Test
    void cannotConnectToTheControlPlaneTheNodeOrAnyHostAddress() {
      JsonNode node = ServerProcess.readJson(dataDir.resolve("node").resolve("node.json"));
      int serverPort = Integer.parseInt(server.baseUrl().replaceAll(".*:", ""));
      List<Integer> ports = List.of(serverPort, node.path("port").asInt(), canary.port());
      List<String> addresses = new ArrayList<>(hostAddresses());
      addresses.addAll(List.of("127.0.0.1", "10.0.2.2", network.hostAddress()));
      for (String address : addresses) {
        for (int port : ports) {
          Shell.Result connect =
              Shell.run(
                  acme,
                  attacker,
                  "timeout 5 bash -c 'exec 3<>/dev/tcp/" + address + "/" + port + "'");
          assertThat(connect.rc())
              .as("connect %s:%s: %s", address, port, connect.output())
              .isNotZero();
        }
      }
      assertThat(canary.accepted()).as("connections that reached the host").isZero();
      assertThat(admin.get("/sessions").status()).isEqualTo(200);
    }

    @Test
    void aSocketBoundToTheTapDeviceReachesNoHostAddressEither() {
      // Routes are no boundary for a socket that names its interface: SO_BINDTODEVICE (25) skips
      // the prohibit routes, and slirp4netns would deliver to the host's own loopback.
      List<String> addresses = new ArrayList<>(hostAddresses());
      addresses.addAll(List.of("127.0.0.1", "127.0.0.53", "10.0.2.2"));
      for (String address : addresses) {
        Shell.Result bound =
            Shell.run(
                acme,
                attacker,
                "timeout 10 perl -MSocket -e '"
                    + "for my $type (SOCK_STREAM, SOCK_DGRAM) {"
                    + " socket(my $s, PF_INET, $type, 0) or die \"socket: $!\";"
                    + " setsockopt($s, SOL_SOCKET, 25, pack(\"Z*\", \"tap0\")) or die \"bind: $!\";"
                    + " my $to = sockaddr_in("
                    + canary.port()
                    + ", inet_aton(\""
                    + address
                    + "\"));"
                    + " if ($type == SOCK_STREAM) { print connect($s, $to) ? \"connected\\n\" :"
                    + " \"tcp refused\\n\" } else { send($s, \"x\", 0, $to) for 1..3;"
                    + " print \"udp sent\\n\" } }'");
        assertThat(bound.output()).as(address).doesNotContain("connected");
      }
      try {
        Thread.sleep(500);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      assertThat(canary.accepted())
          .as("TCP connections and UDP datagrams that reached the host")
          .isZero();
    }

    @Test
    void reachesTheTestHostOutsideInEgressMode() {
      Shell.Result connect = Shell.run(acme, attacker, connectToTestHost());
      assertThat(connect.rc()).as(connect.output()).isZero();
      assertThat(connect.output()).contains(TestNetwork.GREETING);
    }

    @Test
    void aTenantGrantedNoNetworkGetsLoopbackOnlyOnAnEgressServer() {
      Api.Answer issued =
          admin.post(
              "/admin/tokens",
              "{\"tenant\":\"initech\",\"workloadTypes\":[\"shell\"],\"maxSessions\":1,"
                  + "\"network\":\"none\"}");
      assertThat(issued.status()).as(issued.body()).isEqualTo(201);
      Api initech = admin.as(issued.json().path("token").asString());
      String offline = initech.create("offline");

      JsonNode network =
          initech.get("/sessions/" + offline + "/runtime").json().path("isolation").path("network");
      Shell.Result connect = Shell.run(initech, offline, connectToTestHost());

      assertThat(network.path("mode").asString()).isEqualTo("none");
      assertThat(connect.rc()).as(connect.output()).isNotZero();
      assertThat(connect.output()).doesNotContain(TestNetwork.GREETING);
      assertThat(Shell.run(acme, attacker, connectToTestHost()).output())
          .as("the other tenants keep their egress")
          .contains(TestNetwork.GREETING);
    }

    String connectToTestHost() {
      return "timeout 10 bash -c 'exec 3<>/dev/tcp/"
          + network.remoteAddress()
          + "/"
          + TestNetwork.PORT
          + " && head -1 <&3'";
    }

    @Test
    void cannotSeeOrSignalTheOtherSessionsProcesses() {
      Shell.Result look =
          Shell.run(
              acme, attacker, "ps -eo args | grep -c '[7]654321'; ls /proc | grep -c '^[0-9]'");
      String[] counts = look.output().strip().split("\n");
      assertThat(counts[0]).as("the victim's sleep among the attacker's processes").isEqualTo("0");
      assertThat(Integer.parseInt(counts[1])).as("processes in view").isLessThan(12);

      Shell.Result kill = Shell.run(acme, attacker, "kill -9 " + victimSleep);
      assertThat(kill.rc()).isNotZero();
      assertThat(kill.output()).contains("No such process");
      assertThat(ProcessHandle.of(victimSleep).map(ProcessHandle::isAlive)).contains(true);
    }

    @Test
    void cannotPtraceAnything() {
      // ptrace(PTRACE_TRACEME) and ptrace(PTRACE_ATTACH, 1): perl-base's syscall(), no compiler.
      int ptrace = System.getProperty("os.arch").equals("aarch64") ? 117 : 101;
      Shell.Result trace =
          Shell.run(
              acme,
              attacker,
              "perl -e 'print syscall("
                  + ptrace
                  + ", 0, 0, 0, 0), \" $!\\n\";"
                  + " print syscall("
                  + ptrace
                  + ", 16, 1, 0, 0), \" $!\\n\"'");
      assertThat(trace.output())
          .isEqualTo("-1 Operation not permitted\n-1 Operation not permitted\n");
    }

    @Test
    void aForkBombHitsItsOwnLimitWhileTheOtherSessionEchoes() {
      String bomb = acme.create("bomb");
      Shell.write(acme, bomb, "f() { f | f & }; f\n");
      try {
        Thread.sleep(5_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      Shell.Result alive = Shell.run(globex, victim, "echo still-here");
      assertThat(alive.output()).isEqualTo("still-here\n");
      assertThat(admin.get("/sessions/" + victim).status()).isEqualTo(200);
      assertThat(acme.delete("/sessions/" + bomb).status()).isIn(200, 202, 204);
    }

    @Test
    void aMemoryBombIsKilledInsideItsSessionAndTheHostIsFine() {
      Shell.Result bomb =
          Shell.run(
              acme,
              attacker,
              "head -c 3G /dev/zero | tail > /dev/null; echo \"tail=${PIPESTATUS[1]}\"");
      assertThat(bomb.output()).contains("tail=137");
      assertThat(acme.get("/sessions/" + attacker).json().path("state").asString())
          .isEqualTo("active");
      assertThat(Shell.run(globex, victim, "echo fine").output()).isEqualTo("fine\n");
    }

    @Test
    void fillingTheDiskCapFailsInsideWhileTheSessionStaysActiveAndItsSnapshotWorks() {
      String filler = acme.create("filler");
      // The error is kept in the shell's memory and printed once the file gave some space back:
      // on an unprivileged node the output log shares the cap (docs/security.md).
      Shell.Result fill =
          Shell.run(
              acme,
              filler,
              "e=$(dd if=/dev/zero of=~/fill bs=1M count=200 2>&1 >/dev/null); s=$?;"
                  + " full=$(stat -c %s ~/fill); truncate -s 1M ~/fill;"
                  + " echo \"dd=$s full=$((full >> 20))MiB\"; echo \"$e\" | head -1");
      assertThat(fill.output()).contains("dd=1 ").contains("No space left on device");
      long fullMib = Long.parseLong(fill.output().replaceAll("(?s).*full=(\\d+)MiB.*", "$1"));
      assertThat(fullMib).as("what the session could write of 64 MiB").isBetween(32L, 64L);
      assertThat(acme.get("/sessions/" + filler).json().path("state").asString())
          .isEqualTo("active");
      assertThat(Shell.run(globex, victim, "echo unaffected").output()).isEqualTo("unaffected\n");
      JsonNode disk = acme.get("/sessions/" + filler + "/runtime").json().path("disk");
      assertThat(disk.path("capBytes").asLong()).isEqualTo(64L << 20);
      assertThat(disk.path("enforced").asBoolean()).isTrue();
      assertThat(disk.path("usedBytes").asLong()).isBetween(1L << 20, 64L << 20);

      // Filled again to the brim, and archived like that. Nothing is awaited in the output, which
      // an unprivileged node cannot record while the disk is full.
      Shell.write(acme, filler, "dd if=/dev/zero of=~/fill2 bs=1M count=200 2>/dev/null\n");
      await()
          .atMost(Duration.ofSeconds(60))
          .untilAsserted(
              () -> {
                JsonNode now = acme.get("/sessions/" + filler + "/runtime").json();
                assertThat(now.path("disk").path("availableBytes").asLong()).isLessThan(2L << 20);
                assertThat(now.path("busy").asBoolean()).isFalse();
              });
      Api.Answer snapshot = acme.post("/sessions/" + filler + "/snapshot", "");
      assertThat(snapshot.status()).as(snapshot.body()).isEqualTo(200);
      assertThat(snapshot.json().path("state").asString()).isEqualTo("snapshot");
      Shell.Result restored =
          Shell.run(acme, filler, "rm ~/fill2; stat -c %s ~/fill; echo restored");
      assertThat(restored.output()).contains("1048576\nrestored");
      assertThat(acme.delete("/sessions/" + filler).status()).isIn(200, 202, 204);
    }

    @Test
    void homeAndWorkingDirectoryKeepTheirPathsAcrossSnapshotAndRestore() {
      String traveller = acme.create("traveller");
      Shell.Result before =
          Shell.run(
              acme,
              traveller,
              "mkdir -p ~/work && cd ~/work && echo kept > notes && echo \"$PWD/notes\" > ~/where;"
                  + " echo \"$HOME\"; pwd");
      assertThat(before.output()).isEqualTo("/home/berth\n/home/berth/work\n");

      Api.Answer snapshot = acme.post("/sessions/" + traveller + "/snapshot", "");
      assertThat(snapshot.status()).as(snapshot.body()).isEqualTo(200);
      assertThat(snapshot.json().path("state").asString()).isEqualTo("snapshot");

      Shell.Result after =
          Shell.run(acme, traveller, "echo \"$HOME\"; pwd; cat \"$(cat ~/where)\"");
      assertThat(after.output()).isEqualTo("/home/berth\n/home/berth/work\nkept\n");
      assertThat(acme.get("/sessions/" + traveller + "/runtime").json().path("incarnation").asInt())
          .isEqualTo(2);
    }

    Api tenant(String name) {
      Api.Answer issued =
          admin.post(
              "/admin/tokens",
              "{\"tenant\":\"" + name + "\",\"workloadTypes\":[\"shell\"],\"maxSessions\":5}");
      assertThat(issued.status()).as(issued.body()).isEqualTo(201);
      return admin.as(issued.json().path("token").asString());
    }

    Path runtimeState(String session) {
      Path runtimes =
          dataDir.resolve("node").resolve("sessions").resolve(session).resolve("runtimes");
      try (Stream<Path> all = Files.list(runtimes)) {
        return all.sorted().reduce((a, b) -> b).orElseThrow().resolve("volume").resolve("state");
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  @Nested
  class AsRoot extends Attacks {
    @Override
    ServerProcess start(String... arguments) {
      dataDir = workDirectory("root").resolve("data");
      return ServerProcess.start(
          dataDir, Map.of(), ServerProcess.Launch.plain().withArguments(arguments));
    }

    @Override
    boolean asRoot() {
      return true;
    }

    @Override
    void cleanUp() {
      if (dataDir != null) {
        removeWorkDirectory(dataDir.getParent());
      }
    }

    @Override
    int subnet() {
      return 1;
    }
  }

  @Nested
  class AsAnUnprivilegedUser extends Attacks {
    UnprivilegedUser user;

    @Override
    ServerProcess start(String... arguments) {
      user = UnprivilegedUser.create();
      dataDir = user.dataDir();
      return ServerProcess.start(dataDir, Map.of(), user.launch().withArguments(arguments));
    }

    @Override
    boolean asRoot() {
      return false;
    }

    @Override
    int subnet() {
      return 2;
    }

    @Override
    void cleanUp() {
      if (user != null) {
        user.close();
      }
    }

    @Override
    String readAsTheNode(Path file) throws IOException {
      Process cat =
          new ProcessBuilder(
                  "setpriv",
                  "--reuid=" + user.uid(),
                  "--regid=" + user.uid(),
                  "--clear-groups",
                  "cat",
                  file.toString())
              .redirectError(ProcessBuilder.Redirect.DISCARD)
              .start();
      String content = new String(cat.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      try {
        if (cat.waitFor() != 0) {
          throw new IOException("the node's user cannot read " + file);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted reading " + file, e);
      }
      return content;
    }
  }

  /** {@code --network none}: loopback only, the test host unreachable. */
  @Nested
  @TestInstance(TestInstance.Lifecycle.PER_CLASS)
  class WithoutNetwork {
    ServerProcess server;
    Path dataDir;
    TestNetwork network;

    @BeforeAll
    void start() {
      network = TestNetwork.create(3);
      dataDir = workDirectory("none").resolve("data");
      server =
          ServerProcess.start(
              dataDir, Map.of(), ServerProcess.Launch.plain().withArguments("--network", "none"));
    }

    @AfterAll
    void stop() {
      try {
        server.close();
        ServerProcess.killNode(dataDir);
      } finally {
        network.close();
        removeWorkDirectory(dataDir.getParent());
      }
    }

    @Test
    void theTestHostIsUnreachableAndOnlyLoopbackIsThere() {
      Api admin = new Api(server.baseUrl(), ServerProcess.ADMIN_TOKEN);
      String id = admin.create("offline");
      assertThat(
              admin
                  .get("/sessions/" + id + "/runtime")
                  .json()
                  .path("isolation")
                  .path("network")
                  .path("mode")
                  .asString())
          .isEqualTo("none");

      Shell.Result connect =
          Shell.run(
              admin,
              id,
              "timeout 5 bash -c 'exec 3<>/dev/tcp/"
                  + network.remoteAddress()
                  + "/"
                  + TestNetwork.PORT
                  + "'; echo rc=$?; ls /sys/class/net 2>/dev/null || ip -o link | wc -l");
      assertThat(connect.output()).contains("rc=1").doesNotContain(TestNetwork.GREETING);
    }
  }

  private static Path workDirectory(String name) {
    try {
      Path dir = Files.createTempDirectory("berth-isolation-" + name + "-");
      return dir;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Removes a work directory of {@link #workDirectory}, sessions' files and all: they belong to
   * other users (each session's own uid), which {@code rm -rf} run as root removes and a Java walk
   * may not; a test leaves nothing in /tmp.
   */
  private static void removeWorkDirectory(Path dir) {
    if (!dir.getFileName().toString().startsWith("berth-isolation-")) {
      return;
    }
    try {
      Process rm = new ProcessBuilder("rm", "-rf", dir.toString()).inheritIO().start();
      assertThat(rm.waitFor(60, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Every IPv4 address of this machine but loopback. */
  static List<String> hostAddresses() {
    List<String> addresses = new ArrayList<>();
    try {
      for (NetworkInterface nic : Collections.list(NetworkInterface.getNetworkInterfaces())) {
        for (InetAddress address : Collections.list(nic.getInetAddresses())) {
          if (address instanceof Inet4Address && !address.isLoopbackAddress()) {
            addresses.add(address.getHostAddress());
          }
        }
      }
    } catch (SocketException e) {
      throw new UncheckedIOException(e);
    }
    return addresses;
  }

  /** The host pid of the one process whose command line has {@code argument}. */
  static long hostPidOf(String argument) {
    Optional<ProcessHandle> found =
        await()
            .atMost(WAIT)
            .until(
                () ->
                    ProcessHandle.allProcesses()
                        .filter(
                            p ->
                                p.info()
                                    .arguments()
                                    .map(a -> List.of(a).contains(argument))
                                    .orElse(false))
                        .findFirst(),
                Optional::isPresent);
    return found.orElseThrow().pid();
  }
}
