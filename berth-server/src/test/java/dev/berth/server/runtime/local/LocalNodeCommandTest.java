package dev.berth.server.runtime.local;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The command line of the node the control plane starts: a bounded heap, overridable. */
class LocalNodeCommandTest {

  @Test
  void theNodeGetsTheDefaultHeapLimitBeforeItsMainClass() {
    List<String> command = LocalNode.javaLaunchCommand();

    assertThat(command).contains("-Xmx512m");
    assertThat(command.indexOf("-Xmx512m")).isLessThan(command.indexOf("-cp"));
    assertThat(command.getLast()).isEqualTo("dev.berth.agent.node.NodeMain");
  }

  @Test
  void extraOptionsComeAfterTheDefaultsSoTheirHeapLimitWins() {
    List<String> command =
        LocalNode.javaLaunchCommand(
            LocalNode.javaOptions(Optional.of("  -Xmx256m   -XX:+AlwaysPreTouch ")));

    assertThat(command.indexOf("-Xmx256m")).isGreaterThan(command.indexOf("-Xmx512m"));
    assertThat(command.indexOf("-XX:+AlwaysPreTouch")).isLessThan(command.indexOf("-cp"));
  }

  @Test
  void anUnsetOrBlankVariableAddsNoOptions() {
    assertThat(LocalNode.javaOptions(Optional.empty())).isEmpty();
    assertThat(LocalNode.javaOptions(Optional.of("   "))).isEmpty();
  }
}
