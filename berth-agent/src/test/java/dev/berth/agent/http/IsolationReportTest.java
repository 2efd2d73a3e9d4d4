package dev.berth.agent.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.berth.agent.host.HostConfig;
import dev.berth.agent.host.SessionHost;
import dev.berth.agent.isolation.ResourceLimits;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * {@code SessionStatus.isolation} says what is in force, and what it says is checked against the
 * kernel's view of the real shell: its namespaces, its cgroup and that cgroup's limits, its file
 * size limit, what it can write and which processes it sees. Every test asserts on every machine:
 * what is checked follows from what is reported.
 */
class IsolationReportTest {

  private static final String TOKEN = "t".repeat(64);
  private static final String A = "a".repeat(32);
  private static final Duration WAIT = Duration.ofSeconds(10);
  private static final long MIB = 1024 * 1024;
  private static final ResourceLimits LIMITS = new ResourceLimits(100, 256 * MIB, MIB);

  /** Namespace names as reported, and as {@code /proc/<pid>/ns} names them. */
  private static final Map<String, String> NAMESPACES =
      Map.of(
          "user", "user", "mount", "mnt", "pid", "pid", "ipc", "ipc", "net", "net", "uts", "uts",
          "cgroup", "cgroup");

  @TempDir Path root;
  private HostConfig config;
  private SessionHost host;
  private AgentHttpServer server;
  private AgentApi api;
  private JsonNode isolation;
  private long shellPid;

  @BeforeEach
  void startHost() {
    config = HostConfig.defaults(root, TOKEN).withLimits(LIMITS);
    open();
    AgentApi.Answer provisioned = api.provision(A, 1);
    assertThat(provisioned.status()).as(provisioned.body()).isEqualTo(201);
    JsonNode status = api.status(A);
    isolation = status.path("isolation");
    shellPid = status.path("shell").path("pid").asLong();
  }

  @AfterEach
  void stopHost() {
    close();
  }

  @Test
  void theReportedNamespacesAreExactlyThoseTheShellDoesNotShareWithTheHost() throws IOException {
    Set<String> reported = new TreeSet<>();
    isolation.path("namespaces").forEach(n -> reported.add(n.asString()));

    Set<String> own = new TreeSet<>();
    for (var namespace : NAMESPACES.entrySet()) {
      Path name = Path.of("ns", namespace.getValue());
      Path shells = Path.of("/proc", Long.toString(shellPid)).resolve(name);
      if (!Files.readSymbolicLink(shells)
          .equals(Files.readSymbolicLink(Path.of("/proc/self").resolve(name)))) {
        own.add(namespace.getKey());
      }
    }

    assertThat(own).isEqualTo(reported);
    assertThat(isolation.path("sandbox").asString())
        .isEqualTo(reported.isEmpty() ? "none" : "bwrap");
  }

  @Test
  void theStatusShowsWhatTheStateTakesAgainstTheDiskCapAsTheReportSaysItIsEnforced() {
    long before = api.status(A).path("disk").path("usedBytes").asLong();

    int wrote = probe("for i in 1 2 3; do head -c 1000000 /dev/urandom > ~/blob$i || exit 1; done");

    assertThat(wrote).isZero();
    JsonNode disk = api.status(A).path("disk");
    assertThat(disk.path("capBytes").asLong()).isEqualTo(LIMITS.maxDiskBytes());
    assertThat(isolation.path("limits").path("maxDiskBytes").asLong())
        .isEqualTo(LIMITS.maxDiskBytes());
    assertThat(disk.path("enforced").asBoolean())
        .isEqualTo(!isolation.path("disk").asString().equals("none"));
    assertThat(disk.path("usedBytes").asLong() - before).isGreaterThanOrEqualTo(3_000_000);
    assertThat(disk.path("usedBytes").asLong() + disk.path("availableBytes").asLong())
        .isEqualTo(LIMITS.maxDiskBytes());
  }

  @Test
  void theShellSeesTheHostsProcessesOnlyWhenNotSandboxed() {
    long hostPid = ProcessHandle.current().pid();

    int visible = probe("test -d /proc/" + hostPid);

    if (isolation.path("sandbox").asString().equals("bwrap")) {
      assertThat(visible).as("host pid %s visible in the sandbox", hostPid).isEqualTo(1);
      int processes = probe("exit $(ls /proc | grep -c '^[0-9]')");
      assertThat(processes).as("processes the sandboxed shell sees").isBetween(2, 9);
    } else {
      assertThat(visible).as("host pid %s visible without a sandbox", hostPid).isZero();
    }
  }

  @Test
  void aSandboxedShellWritesOnlyItsHomeAndAPrivateTmp() throws IOException {
    String unique = "berth-probe-" + ThreadLocalRandom.current().nextInt(1 << 30);

    int home = probe("touch \"$HOME/" + unique + "\"");
    int tmp = probe("touch /tmp/" + unique);

    assertThat(home).isZero();
    assertThat(home().resolve(unique)).exists();
    assertThat(tmp).isZero();
    if (isolation.path("sandbox").asString().equals("bwrap")) {
      assertThat(probe("touch /etc/" + unique)).isNotZero();
      assertThat(probe("echo x > /usr/" + unique)).isNotZero();
      assertThat(Path.of("/etc", unique)).doesNotExist();
      assertThat(Path.of("/usr", unique)).doesNotExist();
      assertThat(Path.of("/tmp", unique)).as("the shell's /tmp is its own").doesNotExist();
      assertThat(home().resolveSibling("tmp").resolve(unique))
          .as("the shell's /tmp is the runtime's tmp/, kept with its state")
          .exists();
    } else {
      assertThat(Path.of("/tmp", unique)).as("without a sandbox /tmp is the host's").exists();
      Files.delete(Path.of("/tmp", unique));
    }
  }

  @Test
  void theReportedLimitsAreTheConfiguredOnesAndTheReportedCgroupEnforcesThem() throws IOException {
    JsonNode limits = isolation.path("limits");
    assertThat(limits.path("maxProcesses").asInt()).isEqualTo(LIMITS.maxProcesses());
    assertThat(limits.path("maxMemoryBytes").asLong()).isEqualTo(LIMITS.maxMemoryBytes());
    assertThat(limits.path("maxFileSizeBytes").asLong()).isEqualTo(LIMITS.maxFileSizeBytes());

    List<String> shells = Files.readAllLines(Path.of("/proc", Long.toString(shellPid), "cgroup"));
    List<String> ours = Files.readAllLines(Path.of("/proc/self/cgroup"));
    Path cgroupRoot = Path.of("/sys/fs/cgroup");
    switch (isolation.path("cgroup").asString()) {
      case "v1" -> {
        Path pids = cgroupRoot.resolve("pids" + hierarchy(shells, "pids"));
        Path memory = cgroupRoot.resolve("memory" + hierarchy(shells, "memory"));
        assertThat(hierarchy(shells, "pids")).isNotEqualTo(hierarchy(ours, "pids"));
        assertThat(read(pids.resolve("pids.max")))
            .isEqualTo(Integer.toString(LIMITS.maxProcesses()));
        assertThat(read(memory.resolve("memory.limit_in_bytes")))
            .isEqualTo(Long.toString(LIMITS.maxMemoryBytes()));
      }
      case "v2" -> {
        Path group = cgroupRoot.resolve(hierarchy(shells, "").substring(1));
        assertThat(hierarchy(shells, "")).isNotEqualTo(hierarchy(ours, ""));
        assertThat(read(group.resolve("pids.max")))
            .isEqualTo(Integer.toString(LIMITS.maxProcesses()));
        assertThat(read(group.resolve("memory.max")))
            .isEqualTo(Long.toString(LIMITS.maxMemoryBytes()));
      }
      default -> assertThat(shells).as("no cgroup of its own").isEqualTo(ours);
    }
  }

  @Test
  void theFileSizeLimitIsInForce() throws IOException {
    int exit = probe("head -c 2M /dev/zero > \"$HOME/big\"");

    // 128 + SIGXFSZ (25): the kernel stopped the write at the limit.
    assertThat(exit).isEqualTo(153);
    Path big = home().resolve("big");
    assertThat(big).hasSize(LIMITS.maxFileSizeBytes());
    assertThat(Files.readAllLines(Path.of("/proc", Long.toString(shellPid), "limits")))
        .anySatisfy(
            line ->
                assertThat(line.split("\\s{2,}"))
                    .containsExactly(
                        "Max file size",
                        Long.toString(LIMITS.maxFileSizeBytes()),
                        Long.toString(LIMITS.maxFileSizeBytes()),
                        "bytes"));
  }

  @Test
  void aRuntimeReloadedAfterARestartReportsTheHostsConfiguredLimits() {
    close();
    open();

    JsonNode reloaded = api.status(A);

    assertThat(reloaded.path("state").asString()).isEqualTo("stopped");
    JsonNode limits = reloaded.path("isolation").path("limits");
    assertThat(limits.path("maxProcesses").asInt()).isEqualTo(LIMITS.maxProcesses());
    assertThat(limits.path("maxMemoryBytes").asLong()).isEqualTo(LIMITS.maxMemoryBytes());
    assertThat(limits.path("maxFileSizeBytes").asLong()).isEqualTo(LIMITS.maxFileSizeBytes());
  }

  private Path home() {
    return root.resolve("sessions")
        .resolve(A)
        .resolve("runtimes")
        .resolve("berth-" + A + "-1")
        .resolve("volume")
        .resolve("state")
        .resolve("home");
  }

  /** Runs {@code command} in the shell and returns its exit status. */
  private int probe(String command) {
    String marker = "probe-" + ThreadLocalRandom.current().nextInt(1 << 30);
    long cursor = api.end(A);
    // The echoed input line shows "$?", never digits, so only the result matches.
    api.input(A, "(" + command + ") 2>/dev/null; echo \"" + marker + "=$?\"\n");
    Pattern result = Pattern.compile(marker + "=([0-9]+)");
    await().atMost(WAIT).until(() -> result.matcher(api.text(A, cursor)).find());
    Matcher matcher = result.matcher(api.text(A, cursor));
    assertThat(matcher.find()).isTrue();
    return Integer.parseInt(matcher.group(1));
  }

  /** The path of {@code controller}'s hierarchy in a {@code /proc/<pid>/cgroup} file. */
  private static String hierarchy(List<String> cgroupFile, String controller) {
    for (String line : cgroupFile) {
      String[] fields = line.split(":", 3);
      if (List.of(fields[1].split(",")).contains(controller) || fields[1].equals(controller)) {
        return fields[2];
      }
    }
    throw new AssertionError("no " + controller + " hierarchy in " + cgroupFile);
  }

  private static String read(Path file) throws IOException {
    return Files.readString(file).strip();
  }

  private void open() {
    host = SessionHost.open(config, Clock.systemUTC());
    server = AgentHttpServer.start(host, TOKEN, AgentHttpServer.Settings.loopback(0));
    api = new AgentApi(server.port(), TOKEN);
  }

  private void close() {
    if (server != null) {
      server.close();
      server = null;
    }
    if (host != null) {
      host.close();
      host = null;
    }
  }
}
