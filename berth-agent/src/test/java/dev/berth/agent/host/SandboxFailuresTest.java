package dev.berth.agent.host;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.berth.agent.execution.ExecutionOutputs;
import dev.berth.agent.isolation.Sandbox;
import dev.berth.agent.output.OutputSink;
import dev.berth.core.session.SessionId;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Optional;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A launch the sandbox fails is reported to the node's meters by the step that failed. */
class SandboxFailuresTest {

  @TempDir Path root;

  private final RecordingMeters meters = new RecordingMeters();

  @Test
  void aShellWhoseConfinementCannotBePreparedIsCountedAsAConfinementFailure() throws Exception {
    Path state = Files.createDirectories(root.resolve("state"));
    ExecutionOutputs outputs = id -> (OutputSink) (bytes, offset, length) -> {};

    // A plan name the sandbox refuses: the failure of preparing a confinement, without a cgroup.
    assertThatThrownBy(
            () ->
                ShellWorkload.start(
                    SessionId.generate(RandomGenerator.getDefault()),
                    state,
                    "not a plan name",
                    HostConfig.defaults(root, "n".repeat(40)),
                    Sandbox.none(),
                    Optional.empty(),
                    Clock.systemUTC(),
                    outputs,
                    meters))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("plan name");
    assertThat(meters.failures()).containsExactly(NodeMeters.SandboxFailure.CONFINEMENT);
  }

  @Test
  void aSinkReportsTheBytesItPassedOnUnderItsKind() {
    StringBuilder passed = new StringBuilder();
    MeteredSink sink =
        new MeteredSink(
            (bytes, offset, length) ->
                passed.append(new String(bytes, offset, length, StandardCharsets.UTF_8)),
            NodeMeters.OutputKind.EXECUTION,
            meters);

    sink.append("..hello..".getBytes(StandardCharsets.UTF_8), 2, 5);

    assertThat(passed).hasToString("hello");
    assertThat(meters.output(NodeMeters.OutputKind.EXECUTION)).isEqualTo(5);
    assertThat(meters.output(NodeMeters.OutputKind.SHELL)).isZero();
  }
}
