package dev.berth.agent.isolation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.berth.core.error.InvalidValueException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The limits are in force where the sandbox reports them. A check of a mechanism this host lacks
 * fails with what to install, never skips: {@code make test} installs every tool the sandbox uses
 * ({@code bin/ensure-test-tools}), and the suite runs as root, which may create cgroups.
 */
class SandboxTest {
  private static final long MIB = 1024 * 1024;
  private static Sandbox host;

  @TempDir Path state;
  private LaunchPlan plan;

  @BeforeAll
  static void detect() {
    host = Sandbox.detect(Path.of("/sys/fs/cgroup"));
  }

  @AfterEach
  void removePlan() {
    if (plan != null) {
      plan.close();
      assertThat(plan.processes()).as("processes left by the test").isEmpty();
    }
  }

  private static void requireSandbox() {
    assertThat(host.isolation().sandbox())
        .as(
            "bubblewrap (Debian package bubblewrap) must be installed and work here: "
                + host.isolation().weaknesses())
        .isEqualTo("bwrap");
  }

  private static void requireCgroups() {
    assertThat(host.isolation().cgroup())
        .as("the suite needs writable cgroups (run it as root): " + host.isolation().weaknesses())
        .isNotEqualTo("none");
  }

  private LaunchPlan plan(Sandbox sandbox, ResourceLimits limits) {
    plan =
        sandbox.plan(
            "test-sandbox-" + ThreadLocalRandom.current().nextInt(1 << 30),
            List.of("/bin/sh"),
            state,
            limits);
    return plan;
  }

  /** Runs {@code script} with sh under the plan and returns its merged output. */
  private String run(String script) throws IOException, InterruptedException {
    ProcessBuilder builder =
        new ProcessBuilder(plan.wrap(List.of("/bin/bash", "-c", script)))
            .directory(state.toFile())
            .redirectErrorStream(true);
    builder.environment().putAll(plan.environment());
    Process process = builder.start();
    byte[] output = process.getInputStream().readAllBytes();
    assertThat(process.waitFor(10, TimeUnit.SECONDS)).isTrue();
    return new String(output, StandardCharsets.UTF_8);
  }

  @Test
  void reportsWhatThisHostEnforces() {
    Isolation isolation = host.isolation();

    System.out.println("isolation on this host: " + isolation);
    assertThat(isolation.sandbox()).isIn("bwrap", "none");
    assertThat(isolation.cgroup()).isIn("v2", "v1", "none");
    assertThat(isolation.limits()).isEqualTo(ResourceLimits.defaults());
  }

  @Test
  void capsFileSizeWithRlimitEvenWithoutSandbox() throws Exception {
    plan(Sandbox.none(), new ResourceLimits(64, 256 * MIB, 4096));

    String output = run("head -c 100000 /dev/zero > big; echo rc=$?; wc -c < big");

    assertThat(output).contains("File size limit exceeded").contains("rc=153").contains("4096");
  }

  @Test
  void putsEveryProcessInTheSessionCgroupBeforeItRuns() throws Exception {
    requireCgroups();
    plan(host, ResourceLimits.defaults());
    ProcessBuilder builder = new ProcessBuilder(plan.wrap(List.of("/bin/sleep", "30")));
    builder.environment().putAll(plan.environment());
    Process process = builder.start();

    // Inside, the cgroup namespace shows its own root; from outside, every hierarchy holds it.
    org.awaitility.Awaitility.await()
        .until(
            () ->
                plan.cgroupDirectories().stream()
                    .allMatch(dir -> procs(dir).size() >= 1 + plan.workloadDepth()));
    process.destroyForcibly();
  }

  private static List<String> procs(Path cgroup) {
    try {
      return Files.readAllLines(cgroup.resolve("cgroup.procs")).stream()
          .filter(line -> !line.isBlank())
          .toList();
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  @Test
  void capsTheNumberOfProcessesAtTheLimit() throws Exception {
    requireCgroups();
    plan(host, new ResourceLimits(8, 256 * MIB, 64 * MIB));

    String output =
        run(
            "/bin/sh -c 'i=0; while [ $i -lt 30 ]; do sleep 20 >/dev/null 2>&1 & i=$((i+1)); done'; echo end");

    assertThat(output).contains("Cannot fork").contains("end");
    assertThat(plan.processes().size()).isLessThanOrEqualTo(8);
    assertThat(Files.readString(plan.cgroupDirectories().get(0).resolve("pids.max")).strip())
        .isEqualTo("8");
  }

  @Test
  void writesTheMemoryLimit() throws Exception {
    requireCgroups();
    plan(host, new ResourceLimits(8, 256 * MIB, 64 * MIB));

    boolean v2 = host.isolation().cgroup().equals("v2");
    Path memory = plan.cgroupDirectories().get(v2 ? 0 : 1);
    String file = v2 ? "memory.max" : "memory.limit_in_bytes";
    assertThat(Files.readString(memory.resolve(file)).strip()).isEqualTo(Long.toString(256 * MIB));
  }

  @Test
  void removesTheCgroupOnClose() {
    requireCgroups();
    List<Path> directories = plan(host, ResourceLimits.defaults()).cgroupDirectories();
    assertThat(directories).isNotEmpty().allMatch(Files::isDirectory);

    plan.close();

    assertThat(directories).noneMatch(Files::exists);
  }

  @Test
  void killAllEndsEveryProcessOfThePlan() throws Exception {
    plan(host, ResourceLimits.defaults());
    ProcessBuilder builder =
        new ProcessBuilder(plan.wrap(List.of("/bin/sh", "-c", "setsid sleep 60 & sleep 60")));
    builder.environment().putAll(plan.environment());
    Process process = builder.start();
    org.awaitility.Awaitility.await().until(() -> plan.processes().size() >= 2);

    plan.killAll();

    assertThat(process.waitFor(5, TimeUnit.SECONDS)).isTrue();
    assertThat(plan.processes()).isEmpty();
  }

  @Test
  void keepsTheFilesystemReadOnlyOutsideTheStateDirectory() throws Exception {
    requireSandbox();
    plan(host, ResourceLimits.defaults());
    String probe = "berth-probe-" + plan.name();

    String output =
        run(
            "touch /usr/%s; echo inside > /tmp/%s; echo ok > %s/written; cat /tmp/%s"
                .formatted(probe, probe, state, probe));

    assertThat(output).contains("Read-only file system").contains("inside");
    assertThat(Path.of("/usr", probe)).doesNotExist();
    assertThat(Path.of("/tmp", probe)).as("/tmp is private").doesNotExist();
    assertThat(state.resolve("written")).hasContent("ok");
  }

  @Test
  void bindsItsTmpDirectoryAsTmpForEveryLaunchAndLetsEveryGivenDirectoryBeWritten()
      throws Exception {
    requireSandbox();
    Path home = state.resolve("home");
    Path extra = state.resolve("extra");
    Path tmp = state.resolve("tmp");
    plan =
        host.plan(
            "test-sandbox-" + ThreadLocalRandom.current().nextInt(1 << 30),
            List.of("/bin/sh"),
            WritablePaths.of(home, extra).withTmp(tmp),
            ResourceLimits.defaults());
    String probe = "berth-probe-" + plan.name();

    run("echo kept > /tmp/%s; echo a > %s/a; echo b > %s/b".formatted(probe, home, extra));
    String output = run("cat /tmp/" + probe);

    assertThat(output).as("a later launch sees the same /tmp").contains("kept");
    assertThat(tmp.resolve(probe)).hasContent("kept");
    assertThat(Path.of("/tmp", probe)).doesNotExist();
    assertThat(home.resolve("a")).hasContent("a");
    assertThat(extra.resolve("b")).hasContent("b");
  }

  @Test
  void seesOnlyItsOwnProcesses() throws Exception {
    requireSandbox();
    plan(host, ResourceLimits.defaults());

    String output = run("ls -d /proc/[0-9]* | wc -l");

    assertThat(Integer.parseInt(output.strip())).isBetween(2, 5);
    assertThat(host.isolation().namespaces())
        .containsExactly("user", "mount", "pid", "ipc", "uts", "cgroup", "net");
  }

  @Test
  void theWorkloadIsUid1000WithoutCapabilitiesAndTheSeccompFilterRefusesPtraceAndNamespaces()
      throws Exception {
    requireSandbox();
    plan(host, ResourceLimits.defaults());
    int ptrace = System.getProperty("os.arch").equals("aarch64") ? 117 : 101;

    String output =
        run(
            "id -u; grep -E '^(CapEff|NoNewPrivs|Seccomp):' /proc/self/status;"
                + " perl -e 'print syscall("
                + ptrace
                + ", 0, 0, 0, 0), \" $!\\n\"'; unshare -U true; echo unshare=$?");

    assertThat(output)
        .startsWith("1000\n")
        .contains("CapEff:\t0000000000000000")
        .contains("NoNewPrivs:\t1")
        .contains("Seccomp:\t2")
        .contains("-1 Operation not permitted")
        .contains("unshare=1");
  }

  @Test
  void seesAnAllowlistedViewWithTheSecretsOfEtcMaskedAndItsOwnUser() throws Exception {
    requireSandbox();
    plan(host, ResourceLimits.defaults());

    String output =
        run(
            "ls -A / | tr '\\n' ' '; echo; wc -c < /etc/shadow; getent passwd 1000;"
                + " ls -A /root /home /var | wc -l; ls /sys 2>&1 | head -1");

    assertThat(output.lines().findFirst().orElseThrow().strip().split(" "))
        .as("the view's top level")
        .doesNotContain("sys", "opt", "srv", "mnt", "media", "work", "boot")
        .contains("usr", "etc", "proc", "dev", "tmp", "home");
    assertThat(output)
        .contains("\n0\n")
        .contains("berth:x:1000:1000:Berth session:/home/berth:/bin/bash")
        .contains("No such file or directory");
  }

  @Test
  void theOperatorsBindsAndMasksAreInEveryView(@TempDir Path host) throws Exception {
    requireSandbox();
    Path shared = Files.createDirectories(host.resolve("shared"));
    Path cache = Files.createDirectories(host.resolve("cache"));
    Files.writeString(shared.resolve("tool"), "shared tool\n");
    // The session's host uid (a root agent gives it one of its own) must be able to use them.
    for (Path dir : List.of(host, shared, cache)) {
      Files.setPosixFilePermissions(
          dir, java.nio.file.attribute.PosixFilePermissions.fromString("rwxrwxrwx"));
    }
    Sandbox operated =
        Sandbox.detect(
            Path.of("/sys/fs/cgroup"),
            new SandboxSettings(
                java.util.Optional.of(NetworkMode.NONE),
                List.of(
                    SandboxBind.parse(shared + ":/opt/shared:ro"),
                    SandboxBind.parse(cache + ":/opt/cache")),
                List.of(Path.of("/etc/debian_version"))),
            host.resolve("uids"));
    plan(operated, ResourceLimits.defaults());

    String output =
        run(
            "cat /opt/shared/tool; touch /opt/shared/x 2>&1 | grep -c Read-only;"
                + " echo cached > /opt/cache/y; wc -c < /etc/debian_version");

    assertThat(output).isEqualTo("shared tool\n1\n0\n");
    assertThat(cache.resolve("y")).hasContent("cached");
    assertThat(shared.resolve("x")).doesNotExist();
    assertThat(operated.isolation().filesystem())
        .contains("ro /opt/shared (operator bind of " + shared + ")")
        .contains("masked /etc/debian_version");
    assertThat(operated.isolation().network().mode()).isEqualTo("none");
  }

  @Test
  void socketsOfFamiliesTheNetworkNamespaceDoesNotConfineAreRefused() throws Exception {
    requireSandbox();
    plan(host, ResourceLimits.defaults());

    // AF_VSOCK (40) reaches the hypervisor past any network namespace; AF_INET still works.
    String output =
        run(
            "perl -e 'print socket(my $v, 40, 1, 0) ? \"vsock\\n\" : \"refused: $!\\n\";"
                + " print socket(my $i, 2, 1, 0) ? \"inet\\n\" : \"no inet\\n\"'");

    assertThat(output).isEqualTo("refused: Address family not supported by protocol\ninet\n");
  }

  @Test
  void aFrozenSessionStaysFrozenWhileItsProcessesTryToContinueEachOther() throws Exception {
    requireCgroups();
    plan(host, ResourceLimits.defaults());
    Path counter = state.resolve("count");
    ProcessBuilder builder =
        new ProcessBuilder(
                plan.wrap(
                    List.of(
                        "/bin/bash",
                        "-c",
                        "for s in 1 2 3; do (while :; do kill -CONT -1 2>/dev/null; done) & done;"
                            + " i=0; while :; do i=$((i+1)); echo $i > "
                            + counter
                            + "; done")))
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD);
    builder.environment().putAll(plan.environment());
    Process process = builder.start();
    org.awaitility.Awaitility.await().until(() -> Files.exists(counter));

    plan.freeze();
    String frozen = Files.readString(counter);
    Thread.sleep(300);
    String later = Files.readString(counter);
    plan.thaw();
    org.awaitility.Awaitility.await().until(() -> !Files.readString(counter).equals(later));

    assertThat(later).as("nothing ran while frozen").isEqualTo(frozen);
    process.destroyForcibly();
  }

  @Test
  void refusesAPlanNameThatIsNotAPathSegment() {
    for (String name : List.of("", "../x", "a/b", ".hidden", "x y")) {
      assertThatThrownBy(() -> Sandbox.none().plan(name, List.of("/bin/sh"), state, limits()))
          .as(name)
          .isInstanceOf(IllegalArgumentException.class);
    }
  }

  @Test
  void refusesLimitsOutsideTheirRange() {
    assertThatThrownBy(() -> new ResourceLimits(0, 256 * MIB, 4096))
        .isInstanceOf(InvalidValueException.class)
        .hasMessageContaining("maxProcesses");
    assertThatThrownBy(() -> new ResourceLimits(8, 1024, 4096))
        .isInstanceOf(InvalidValueException.class)
        .hasMessageContaining("maxMemoryBytes");
    assertThatThrownBy(() -> new ResourceLimits(8, 256 * MIB, 10))
        .isInstanceOf(InvalidValueException.class)
        .hasMessageContaining("maxFileSizeBytes");
  }

  private static ResourceLimits limits() {
    return ResourceLimits.defaults();
  }
}
