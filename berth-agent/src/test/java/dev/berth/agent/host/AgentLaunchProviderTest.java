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
}
