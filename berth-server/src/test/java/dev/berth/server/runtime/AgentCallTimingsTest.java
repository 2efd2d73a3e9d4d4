package dev.berth.server.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import org.junit.jupiter.api.Test;

class AgentCallTimingsTest {

  @Test
  void anAgentRouteTemplateHidesEveryIdButKeepsTheRouteWords() {
    assertThat(AgentCallTimings.route(URI.create("http://h:1/v1/sessions/ses_0a1b/input?x=1")))
        .isEqualTo("/v1/sessions/{id}/input");
    assertThat(
            AgentCallTimings.route(
                URI.create("http://h:1/v1/sessions/ses_0a1b/executions/exe_9/status")))
        .isEqualTo("/v1/sessions/{id}/executions/{id}/status");
    assertThat(AgentCallTimings.route(URI.create("http://h:1/v1/sessions")))
        .isEqualTo("/v1/sessions");
  }

  @Test
  void anAnswerIsLabelledByItsStatusClass() {
    assertThat(AgentCallTimings.outcome(204)).isEqualTo("2xx");
    assertThat(AgentCallTimings.outcome(409)).isEqualTo("4xx");
  }
}
