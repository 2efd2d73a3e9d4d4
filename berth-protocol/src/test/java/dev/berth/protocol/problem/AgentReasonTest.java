package dev.berth.protocol.problem;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class AgentReasonTest {

  @Test
  void everyReasonIsReadBackAsItselfFromItsWireName() {
    for (AgentReason reason : AgentReason.values()) {
      if (reason != AgentReason.UNKNOWN) {
        assertThat(AgentReason.parse(reason.wireName())).isEqualTo(reason);
      }
    }
  }

  @Test
  void aReasonOfANewerAgentIsReadAsUnknownInsteadOfFailing() {
    assertThat(AgentReason.parse("SOMETHING_NEW")).isEqualTo(AgentReason.UNKNOWN);
    assertThat(AgentReason.parse("")).isEqualTo(AgentReason.UNKNOWN);
    // UNKNOWN is only ever read: an agent that answered it would not be understood either.
    assertThat(AgentReason.parse("UNKNOWN")).isEqualTo(AgentReason.UNKNOWN);
  }

  @Test
  void aBareStatusGetsTheReasonOfItsKind() {
    assertThat(AgentReason.ofStatus(400)).isEqualTo(AgentReason.INVALID_INPUT);
    assertThat(AgentReason.ofStatus(404)).isEqualTo(AgentReason.NOT_FOUND);
    assertThat(AgentReason.ofStatus(405)).isEqualTo(AgentReason.METHOD_NOT_ALLOWED);
    assertThat(AgentReason.ofStatus(413)).isEqualTo(AgentReason.PAYLOAD_TOO_LARGE);
    assertThat(AgentReason.ofStatus(415)).isEqualTo(AgentReason.INVALID_INPUT);
    assertThat(AgentReason.ofStatus(503)).isEqualTo(AgentReason.INTERNAL);
  }
}
