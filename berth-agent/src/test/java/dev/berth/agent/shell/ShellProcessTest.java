package dev.berth.agent.shell;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.berth.agent.isolation.LaunchPlan;
import dev.berth.agent.isolation.ResourceLimits;
import dev.berth.agent.isolation.Sandbox;
import dev.berth.agent.testing.CollectingSink;
import dev.berth.agent.testing.HostProcesses;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** A real bash on a real PTY, under this host's real sandbox. */
class ShellProcessTest {
  private static Sandbox host;

  @TempDir Path state;
  private final CollectingSink output = new CollectingSink();
  private LaunchPlan plan;
  private ShellProcess shell;

  @BeforeAll
  static void detectSandbox() {
    host = Sandbox.detect(Path.of("/sys/fs/cgroup"));
  }

  static Stream<Sandbox> sandboxes() {
    return Stream.of(host, Sandbox.none());
  }

  @AfterEach
  void stopEverything() {
    if (shell != null) {
      shell.terminate(Duration.ofMillis(200));
    }
    if (plan != null) {
      plan.close();
      assertThat(plan.processes()).as("processes left by the test").isEmpty();
    }
  }

  private ShellProcess start(Sandbox sandbox) {
    ShellSpec spec = ShellSpec.defaults(state);
    plan =
        sandbox.plan(
            "test-shell-" + ThreadLocalRandom.current().nextInt(1 << 30),
            spec.command(),
            state,
            ResourceLimits.defaults());
    shell = ShellProcess.start(spec, plan, output);
    return shell;
  }

  private ShellProcess start() {
    return start(host);
  }

  private void type(String line) {
    shell.write((line + "\n").getBytes(UTF_8));
  }

  private void awaitPrompt() {
    await().atMost(Duration.ofSeconds(5)).until(() -> !shell.busy() && output.size() > 0);
  }

  @Test
  void runsATypedCommandAndReturnsItsOutput() {
    start();
    type("echo hi-$((40+2))");
    output.awaitText("hi-42");
  }

  @Test
  void keepsShellStateBetweenWrites() {
    start();
    type("export MARKER=42");
    type("echo \"marker=$MARKER\"");
    output.awaitText("marker=42");
  }

  @Test
  void reportsTheTerminalSizeAndFollowsAResize() {
    start();
    type("stty size");
    output.awaitText("24 80");
    shell.resize(120, 40);
    type("stty size");
    output.awaitText("40 120");
    assertThat(shell.columns()).isEqualTo(120);
    assertThat(shell.rows()).isEqualTo(40);
  }

  @Test
  void startsWithXterm256ColorInItsHomeAndWithoutTheAgentsEnvironment() {
    start();
    type("echo \"t=$TERM h=$HOME p=$(pwd) j=[$JAVA_HOME]\"");
    output.awaitText("t=xterm-256color h=" + state + " p=" + state + " j=[]");
  }

  @Test
  void hasTheTerminalAsControllingTerminalWithJobControl() {
    start();
    type("tty >/dev/null && case $- in *m*) echo jobs-$((6*7));; esac");
    output.awaitText("jobs-42");
  }

  @Test
  void writeReturnsWithoutWaitingForTheCommand() {
    start();
    long before = System.nanoTime();
    type("sleep 3; echo done-$((1+1))");
    assertThat(Duration.ofNanos(System.nanoTime() - before)).isLessThan(Duration.ofMillis(200));
    output.awaitText("done-2", Duration.ofSeconds(6));
  }

  @Test
  void isBusyWhileAForegroundProgramRunsAndIdleAtThePrompt() {
    start();
    awaitPrompt();
    assertThat(shell.foregroundCommand()).isEmpty();
    type("sleep 5");
    await().atMost(Duration.ofSeconds(3)).until(shell::busy);
    assertThat(shell.foregroundCommand()).contains("sleep");
    shell.write(new byte[] {3});
    await().atMost(Duration.ofSeconds(3)).until(() -> !shell.busy());
  }

  @Test
  void reportsTheExitAndRefusesInputAfterwards() throws Exception {
    start();
    type("exit 7");
    assertThat(shell.onExit().get(5, TimeUnit.SECONDS)).isEqualTo(7);
    assertThat(shell.isAlive()).isFalse();
    assertThat(shell.exitCode()).hasValue(7);
    assertThatThrownBy(() -> type("echo again"))
        .isInstanceOf(ShellExitedException.class)
        .hasMessageContaining("no live shell")
        .hasMessageContaining(plan.name());
    assertThatThrownBy(() -> shell.resize(100, 30)).isInstanceOf(ShellExitedException.class);
  }

  @ParameterizedTest
  @MethodSource("sandboxes")
  void terminateKillsBackgroundJobsAndDetachedGrandchildren(Sandbox sandbox) throws Exception {
    start(sandbox);
    int base = 30_000 + ThreadLocalRandom.current().nextInt(20_000) * 10;
    List<String> words = Stream.of(1, 2, 3, 4, 5).map(i -> Integer.toString(base + i)).toList();
    type(
        "sleep %s & (sleep %s &); setsid sh -c 'sleep %s & sleep %s' & nohup sleep %s >/dev/null 2>&1 &"
            .formatted(words.toArray()));
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> words.stream().allMatch(w -> HostProcesses.withArgument(w).size() == 1));

    shell.terminate(Duration.ofMillis(300));

    assertThat(shell.onExit()).isDone();
    assertThat(shell.isAlive()).isFalse();
    for (String word : words) {
      assertThat(HostProcesses.withArgument(word)).as("sleep " + word).isEmpty();
    }
    assertThat(plan.processes()).isEmpty();
  }

  @Test
  void terminateIsIdempotent() {
    start();
    shell.terminate(Duration.ofMillis(200));
    shell.terminate(Duration.ofMillis(200));
    assertThat(shell.isAlive()).isFalse();
  }

  @Test
  void refusesATerminalSizeOutsideOneToAThousand() {
    start();
    assertThatThrownBy(() -> shell.resize(0, 24)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> shell.resize(1001, 24)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> shell.resize(80, 0)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> shell.resize(80, 1001)).isInstanceOf(IllegalArgumentException.class);
    assertThat(shell.columns()).isEqualTo(80);
    assertThat(shell.rows()).isEqualTo(24);
  }
}
