package dev.berth.agent.host;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.berth.agent.proxy.AuthHeader;
import dev.berth.core.error.InvalidValueException;
import org.junit.jupiter.api.Test;

/** The provider a control plane sends with a provision, as the node reads it off the wire. */
class AgentLaunchProviderTest {

  private static AgentLaunch.Provider read(String extra) {
    return dev.berth.protocol.json.AgentJson.mapper()
        .readValue(
            "{\"name\":\"claude-code\",\"baseUrl\":\"https://api.example\",\"token\":\"sk-t\","
                + "\"api\":\"anthropic\""
                + extra
                + "}",
            AgentLaunch.Provider.class);
  }

  @Test
  void theTokensHeaderIsTheOneTheControlPlaneNamesOrTheApiFamilysDefault() {
    assertThat(read(",\"authHeader\":\"authorization\"").profile().authHeader().bearer()).isTrue();
    assertThat(read(",\"authHeader\":\"api-key\"").profile().authHeader())
        .isEqualTo(new AuthHeader("api-key"));
    assertThat(read("").profile().authHeader()).isEqualTo(AuthHeader.X_API_KEY);
    assertThatThrownBy(() -> read(",\"authHeader\":\"Host\"").profile())
        .isInstanceOf(InvalidValueException.class)
        .hasMessageContaining("auth header");
  }

  @Test
  void theProxysLaunchCarriesTheCredentialsAndWhatTheNodeKeepsAfterwardsHoldsNone() {
    AgentLaunch launch =
        new AgentLaunch(
            "/usr/bin/true",
            "platform-default",
            read(",\"authHeader\":\"api-key\""),
            java.util.List.of(),
            new AgentLaunch.Approval("all", "http://127.0.0.1:9/gateway", "gw-key", 60));
    dev.berth.core.session.SessionId session =
        dev.berth.core.session.SessionId.generate(java.util.random.RandomGenerator.getDefault());

    String line = launch.proxyLaunch(session, java.nio.file.Path.of("/run/p.sock")).toJson();
    AgentLaunch kept = launch.withoutCredentials();

    assertThat(line)
        .contains("\"session\":\"" + session.value() + "\"", "\"listen\":\"unix:/run/p.sock\"")
        .contains("\"token\":\"sk-t\"", "\"authHeader\":\"api-key\"", "\"key\":\"gw-key\"");
    assertThat(kept.spent()).isTrue();
    assertThat(launch.spent()).isFalse();
    assertThat(kept.provider().token()).isEmpty();
    assertThat(java.util.Objects.requireNonNull(kept.approval()).key()).isEmpty();
    assertThat(kept.cli()).isEqualTo(launch.cli());
    assertThat(kept.model()).isEqualTo(launch.model());
  }
}
