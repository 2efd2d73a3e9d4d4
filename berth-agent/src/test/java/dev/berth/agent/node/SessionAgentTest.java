package dev.berth.agent.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.berth.agent.host.HostConfig;
import dev.berth.agent.host.HostRefusal;
import dev.berth.agent.host.RuntimeRequest;
import dev.berth.agent.host.RuntimeView;
import dev.berth.agent.http.AgentHttpServer;
import dev.berth.core.session.SessionId;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code berth agent}: one session, its runtime created at start, every other session refused. */
class SessionAgentTest {

  private static final String TOKEN = "k".repeat(40);
  private static final SessionId SESSION = new SessionId("c".repeat(32));

  @TempDir Path root;

  @Test
  void theAgentCreatesItsSessionsRuntimeAtStartAndRefusesAnyOtherSession() {
    try (SessionAgent agent =
        SessionAgent.start(
            SESSION,
            3,
            "inst",
            HostConfig.defaults(root, TOKEN),
            AgentHttpServer.Settings.loopback(0))) {
      RuntimeView view = agent.host().status(SESSION);

      assertThat(view.descriptor().runtime()).isEqualTo("berth-" + SESSION.value() + "-3");
      assertThat(view.descriptor().labels())
          .containsEntry("berth.dev/installation", "inst")
          .containsEntry("berth.dev/incarnation", "3");
      assertThat(agent.port()).isPositive();
      SessionId other = new SessionId("d".repeat(32));
      assertThatThrownBy(
              () ->
                  agent
                      .host()
                      .provision(
                          other,
                          new RuntimeRequest("berth-" + other.value() + "-1", 1, "shell", Map.of()),
                          Optional.empty()))
          .isInstanceOf(HostRefusal.class)
          .hasMessageContaining("hosts only session " + SESSION.value());
    }
  }
}
