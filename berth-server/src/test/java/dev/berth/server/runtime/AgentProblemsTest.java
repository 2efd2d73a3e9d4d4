package dev.berth.server.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.core.agent.Refusal;
import dev.berth.core.error.NotFoundException;
import dev.berth.core.error.StaleIntentException;
import dev.berth.protocol.problem.AgentCommandFailedException;
import dev.berth.protocol.problem.AgentReason;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** How the control plane reads an agent's problem answer: the domain's exceptions and refusals. */
class AgentProblemsTest {

  private final JsonMapper json = JsonMapper.builder().build();

  private RuntimeException read(int status, String reason) {
    JsonNode body =
        json.readTree(
            "{\"status\":" + status + ",\"reason\":\"" + reason + "\",\"detail\":\"told why\"}");
    return AgentWireClient.problem("runtime r", status, Optional.of(body), Optional.empty());
  }

  @Test
  void theRefusalsTheDomainDecidesOnAreTyped() {
    assertThat(read(409, "SUSPENDING"))
        .isInstanceOfSatisfying(
            AgentCommandFailedException.class,
            e -> {
              assertThat(e.refusal()).isEqualTo(Refusal.SUSPENDING);
              assertThat(e.agentReason()).isEqualTo(AgentReason.SUSPENDING);
              assertThat(e.status()).isEqualTo(409);
            });
    assertThat(((AgentCommandFailedException) read(422, "ARCHIVE_UNSAFE")).refusal())
        .isEqualTo(Refusal.ARCHIVE_UNSAFE);
    assertThat(((AgentCommandFailedException) read(422, "ARCHIVE_CORRUPT")).refusal())
        .isEqualTo(Refusal.ARCHIVE_CORRUPT);
    assertThat(((AgentCommandFailedException) read(422, "ARCHIVE_REFUSED")).refusal())
        .isEqualTo(Refusal.ARCHIVE_REFUSED);
    assertThat(((AgentCommandFailedException) read(409, "PROMPTS_RUNNING")).refusal())
        .isEqualTo(Refusal.PROMPTS_RUNNING);
    assertThat(((AgentCommandFailedException) read(503, "SHELL_EXITED")).refusal())
        .isEqualTo(Refusal.OTHER);
  }

  @Test
  void aReasonOfANewerAgentIsARefusalKeepingItsSpellingNotACrash() {
    assertThat(read(409, "SOMETHING_NEW"))
        .isInstanceOfSatisfying(
            AgentCommandFailedException.class,
            e -> {
              assertThat(e.agentReason()).isEqualTo(AgentReason.UNKNOWN);
              assertThat(e.refusal()).isEqualTo(Refusal.OTHER);
              assertThat(e.reason()).isEqualTo("SOMETHING_NEW");
              assertThat(e.getMessage()).contains("409 SOMETHING_NEW: told why");
            });
  }

  @Test
  void theContractsRefusalsAreTheDomainsOwnExceptions() {
    assertThat(read(409, "STALE_INTENT")).isInstanceOf(StaleIntentException.class);
    assertThat(read(404, "NOT_FOUND")).isInstanceOf(NotFoundException.class);
  }
}
