package dev.berth.agent.execution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.berth.agent.isolation.LaunchPlan;
import dev.berth.agent.isolation.ResourceLimits;
import dev.berth.agent.isolation.Sandbox;
import dev.berth.agent.shell.ShellSpec;
import dev.berth.agent.testing.CollectingSink;
import dev.berth.agent.testing.HostProcesses;
import dev.berth.core.error.NotFoundException;
import dev.berth.core.execution.ExecutionId;
import dev.berth.core.execution.ExecutionRequest;
import dev.berth.core.execution.ExecutionState;
import dev.berth.core.session.SessionId;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Real bash processes under this host's real sandbox. */
class ExecutionRunnerTest {
  private static Sandbox host;

  @TempDir Path state;
  private final Map<ExecutionId, CollectingSink> outputs = new ConcurrentHashMap<>();
  private LaunchPlan plan;
  private ExecutionRunner runner;

  @BeforeAll
  static void detectSandbox() {
    host = Sandbox.detect(Path.of("/sys/fs/cgroup"));
  }

  @BeforeEach
  void startRunner() {
    startRunner(host);
  }

  private void startRunner(Sandbox sandbox) {
    if (runner != null) {
      stopEverything();
    }
    ShellSpec spec = ShellSpec.defaults(state).withVariable("MARKER", "42");
    plan =
        sandbox.plan(
            "test-exec-" + ThreadLocalRandom.current().nextInt(1 << 30),
            spec.command(),
            state,
            ResourceLimits.defaults());
    runner =
        new ExecutionRunner(
            SessionId.generate(new Random(7)),
            spec,
            plan,
            id -> outputs.computeIfAbsent(id, unused -> new CollectingSink()),
            Clock.systemUTC(),
            new Random());
  }

  @AfterEach
  void stopEverything() {
    runner.close();
    plan.close();
    assertThat(plan.processes()).as("processes left by the test").isEmpty();
  }

  private ExecutionView awaitFinished(ExecutionView started) {
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> runner.get(started.id()).orElseThrow().state().isFinished());
    return runner.get(started.id()).orElseThrow();
  }

  private String output(ExecutionView view) {
    return outputs.get(view.id()).text();
  }

  @Test
  void succeedsWithExitCodeZeroAndCapturesTheOutput() {
    ExecutionView started = runner.start(ExecutionRequest.of("echo out; echo err >&2"));
    assertThat(started.state()).isEqualTo(ExecutionState.RUNNING);

    ExecutionView done = awaitFinished(started);

    assertThat(done.state()).isEqualTo(ExecutionState.SUCCEEDED);
    assertThat(done.execution().exitCode()).contains(0);
    assertThat(output(done)).isEqualTo("out\nerr\n");
    assertThat(done.outputBytes()).isEqualTo(8);
    assertThat(done.execution().outputEnd()).contains(8L);
    assertThat(done.execution().finishedAt()).isPresent();
  }

  @Test
  void failsWithTheCommandsExitCode() {
    ExecutionView done = awaitFinished(runner.start(ExecutionRequest.of("exit 3")));

    assertThat(done.state()).isEqualTo(ExecutionState.FAILED);
    assertThat(done.execution().exitCode()).contains(3);
  }

  @Test
  void runsInTheShellsHomeWithItsEnvironmentAndNoInput() {
    ExecutionView done =
        awaitFinished(
            runner.start(
                ExecutionRequest.of(
                    "echo \"h=$HOME p=$(pwd) m=$MARKER j=[$JAVA_HOME]\"; cat; tty || true")));

    assertThat(output(done))
        .contains("h=" + state + " p=" + state + " m=42 j=[]")
        .contains("not a tty");
    assertThat(done.state()).isEqualTo(ExecutionState.SUCCEEDED);
  }

  @Test
  void cancelsACommandThatOutlivesItsTimeout() {
    ExecutionView started = runner.start(ExecutionRequest.of("sleep 30", Duration.ofSeconds(1)));

    ExecutionView done = awaitFinished(started);

    assertThat(done.state()).isEqualTo(ExecutionState.CANCELLED);
    assertThat(done.timedOut()).isTrue();
  }

  @Test
  void cancelKillsTheCommandAndItsChildren() {
    String word = Integer.toString(40_000 + ThreadLocalRandom.current().nextInt(100_000));
    ExecutionView started =
        runner.start(ExecutionRequest.of("sleep %s & sleep %s; wait".formatted(word, word)));
    await().until(() -> HostProcesses.withArgument(word).size() == 2);

    ExecutionView cancelled = runner.cancel(started.id());

    assertThat(cancelled.state()).isEqualTo(ExecutionState.CANCELLED);
    assertThat(cancelled.timedOut()).isFalse();
    assertThat(HostProcesses.withArgument(word)).isEmpty();
    assertThat(runner.cancel(started.id())).isEqualTo(cancelled);
  }

  @Test
  void cancelKillsTheCommandAndItsChildrenWithoutSandbox() {
    startRunner(Sandbox.none());
    cancelKillsTheCommandAndItsChildren();
  }

  @Test
  void endsWhenBashExitsEvenIfABackgroundChildHoldsTheOutput() {
    startRunner(host.withoutNamespaces());
    String word = Integer.toString(40_000 + ThreadLocalRandom.current().nextInt(100_000));

    ExecutionView done =
        awaitFinished(runner.start(ExecutionRequest.of("sleep %s & echo started".formatted(word))));

    assertThat(done.state()).isEqualTo(ExecutionState.SUCCEEDED);
    assertThat(output(done)).isEqualTo("started\n");
    // Killed as the execution ends; the kernel takes a moment to take the process away.
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(() -> assertThat(HostProcesses.withArgument(word)).isEmpty());
  }

  @Test
  void cancelOfAFinishedExecutionReturnsItUnchanged() {
    ExecutionView done = awaitFinished(runner.start(ExecutionRequest.of("true")));

    assertThat(runner.cancel(done.id())).isEqualTo(done);
  }

  @Test
  void cancelOfAnUnknownExecutionIsNotFound() {
    assertThatThrownBy(() -> runner.cancel(ExecutionId.generate(new Random(1))))
        .isInstanceOf(NotFoundException.class);
  }

  @Test
  void runsManyExecutionsConcurrentlyAndListsThemInSubmissionOrder() {
    List<ExecutionView> started =
        IntStream.range(0, 12)
            .mapToObj(i -> runner.start(ExecutionRequest.of("sleep 0.5; echo n-" + i)))
            .toList();
    assertThat(runner.anyRunning()).isTrue();

    await().atMost(Duration.ofSeconds(10)).until(() -> !runner.anyRunning());

    List<ExecutionView> listed = runner.list();
    assertThat(listed)
        .extracting(ExecutionView::id)
        .containsExactlyElementsOf(started.stream().map(ExecutionView::id).toList());
    for (int i = 0; i < listed.size(); i++) {
      assertThat(listed.get(i).state()).isEqualTo(ExecutionState.SUCCEEDED);
      assertThat(output(listed.get(i))).isEqualTo("n-" + i + "\n");
    }
  }

  @Test
  void closeKillsRunningExecutionsAndRecordsThemLost() {
    ExecutionView started = runner.start(ExecutionRequest.of("sleep 30"));

    runner.close();

    assertThat(runner.get(started.id()).orElseThrow().state()).isEqualTo(ExecutionState.LOST);
    assertThatThrownBy(() -> runner.start(ExecutionRequest.of("true")))
        .isInstanceOf(IllegalStateException.class);
  }
}
