package dev.berth.server.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.core.execution.ExecutionId;
import dev.berth.core.session.SessionId;
import java.net.URI;
import org.junit.jupiter.api.Test;

class AgentCallTimingsTest {

  @Test
  void anAgentRouteTemplateHidesEveryIdButKeepsTheRouteWords() {
    // Real ids: a session's 32 hex characters (here even one of letters only), an execution's.
    String session = "abcdefabcdefabcdefabcdefabcdefab";
    String execution = ExecutionId.generate(new java.util.Random(7)).value();
    assertThat(
            AgentCallTimings.route(URI.create("http://h:1/v1/sessions/" + session + "/input?x=1")))
        .isEqualTo("/v1/sessions/{id}/input");
    assertThat(
            AgentCallTimings.route(
                URI.create(
                    "http://h:1/v1/sessions/"
                        + SessionId.generate(new java.util.Random(7))
                        + "/executions/"
                        + execution
                        + "/status")))
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
