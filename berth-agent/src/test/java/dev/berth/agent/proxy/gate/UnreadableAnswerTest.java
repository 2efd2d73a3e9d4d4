package dev.berth.agent.proxy.gate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.agent.proxy.ProviderProfile;
import dev.berth.core.approval.ApprovalPolicy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A success the gate cannot read is never passed on: an upstream that labels its event stream as
 * something else (or sends any body that is not a JSON object) could otherwise carry a tool call
 * past the gate.
 */
class UnreadableAnswerTest {

  /** A gate that counts its questions: none may be asked about an answer that is withheld. */
  private static final class Counting implements ToolGate {
    final AtomicInteger asked = new AtomicInteger();

    @Override
    public String requestId() {
      return "s".repeat(32) + ":" + "0".repeat(32);
    }

    @Override
    public Decision decide(String requestId, ToolCall call) {
      asked.incrementAndGet();
      return Decision.approval();
    }
  }

  private final Counting gate = new Counting();
  private final Gatekeeper keeper =
      new Gatekeeper(new GatePolicy(ApprovalPolicy.ALL), gate, List.of(), Duration.ofMillis(50));

  private String through(ProviderProfile.Api api, String body) throws Exception {
    List<String> sent = new ArrayList<>();
    AnswerGate answer = keeper.forAnswer(api, false);
    answer.accept(body, sent::add);
    answer.finish(sent::add);
    return String.join("", sent);
  }

  @Test
  void anEventStreamLabelledAsSomethingElseIsWithheldWithAnErrorAndNoCallPasses() throws Exception {
    String mislabelled =
        "event: content_block_start\n"
            + "data: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":"
            + "{\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":\"Bash\",\"input\":{}}}\n\n";

    String sent = through(ProviderProfile.Api.ANTHROPIC, mislabelled);

    assertThat(sent).isEqualTo(JsonAnswerGate.WITHHELD).doesNotContain("tool_use");
    assertThat(gate.asked).hasValue(0);
  }

  @Test
  void aJsonArrayIsWithheldButAnEmptyBodyAndAnObjectWithoutCallsPassAsTheyCame() throws Exception {
    assertThat(through(ProviderProfile.Api.OPENAI, "[{\"type\":\"function_call\"}]"))
        .isEqualTo(JsonAnswerGate.WITHHELD);
    assertThat(through(ProviderProfile.Api.OPENAI, "")).isEmpty();
    String models = "{\"data\":[{\"id\":\"claude-sonnet\"}]}";
    assertThat(through(ProviderProfile.Api.ANTHROPIC, models)).isEqualTo(models);
    assertThat(gate.asked).hasValue(0);
  }

  @Test
  void aJsonAnswerTooLargeToHoldIsWithheldWithAnError() throws Exception {
    String huge =
        "{\"content\":[{\"type\":\"text\",\"text\":\""
            + "x".repeat(JsonAnswerGate.MAX_HELD_CHARS)
            + "\"}]}";

    assertThat(through(ProviderProfile.Api.ANTHROPIC, huge)).isEqualTo(JsonAnswerGate.TOO_LARGE);
    assertThat(gate.asked).hasValue(0);
  }
}
