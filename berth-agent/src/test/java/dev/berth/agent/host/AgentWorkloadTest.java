package dev.berth.agent.host;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.berth.agent.isolation.Sandbox;
import dev.berth.core.session.SessionId;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AgentWorkloadTest {

  @TempDir Path root;

  private final RecordingMeters meters = new RecordingMeters();

  @Test
  void aNodeThatCannotConfineRefusesAnAgentSessionBeforeItStartsAnythingForItAndCountsTheRefusal()
      throws Exception {
    Path state = Files.createDirectories(root.resolve("state"));
    Path socket = root.resolve("proxy.sock");
    AgentLaunch launch =
        new AgentLaunch(
            "/usr/bin/true",
            "platform-default",
            new AgentLaunch.Provider(
                "fake", "https://127.0.0.1:9/", "t".repeat(40), "anthropic", null, null),
            List.of());

    assertThatThrownBy(
            () ->
                AgentWorkload.start(
                    SessionId.generate(RandomGenerator.getDefault()),
                    state,
                    new AgentWorkload.ProxyPlace.Own(socket),
                    "plan",
                    HostConfig.defaults(root, "n".repeat(40)),
                    Sandbox.none(),
                    launch,
                    "claude-code",
                    Clock.systemUTC(),
                    meters))
        .isInstanceOfSatisfying(
            HostRefusal.class,
            r -> {
              assertThat(r.status()).isEqualTo(503);
              assertThat(r.reason())
                  .isEqualTo(dev.berth.protocol.problem.AgentReason.ISOLATION_UNAVAILABLE);
            })
        .hasMessageContaining("bubblewrap");
    // No proxy holds the token, no log or transcript was made.
    assertThat(socket).doesNotExist();
    try (var left = Files.list(state)) {
      assertThat(left).isEmpty();
    }
    assertThat(meters.failures()).containsExactly(NodeMeters.SandboxFailure.UNCONFINED);
  }

  @Test
  void inAPodTheCliRunsUnconfinedBesideTheProxySidecarAndTheHostStartsNoProxyNorHoldsAToken()
      throws Exception {
    Path state = Files.createDirectories(root.resolve("state"));
    AgentLaunch launch =
        new AgentLaunch(
            "/usr/bin/true",
            "platform-default",
            new AgentLaunch.Provider(
                "claude-code",
                "http://127.0.0.1:8091",
                dev.berth.agent.agentcli.ProviderEndpoint.PLACEHOLDER,
                "anthropic",
                null,
                null),
            List.of());

    Workload.Agent agent =
        AgentWorkload.start(
            SessionId.generate(RandomGenerator.getDefault()),
            state,
            new AgentWorkload.ProxyPlace.Sidecar(java.net.URI.create("http://127.0.0.1:8091")),
            "plan",
            HostConfig.defaults(root, "n".repeat(40)),
            Sandbox.none(),
            launch,
            "claude-code",
            Clock.systemUTC(),
            meters);
    try {
      assertThat(agent.proxy()).isNull();
      assertThat(agent.plan().isolation().sandbox()).isEqualTo("none");
      assertThat(meters.failures()).isEmpty();
      assertThat(root.resolve("proxies")).doesNotExist();
    } finally {
      agent.stop();
      agent.transcript().close();
      agent.output().close();
    }
  }
}
