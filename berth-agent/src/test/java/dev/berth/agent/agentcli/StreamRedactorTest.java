package dev.berth.agent.agentcli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class StreamRedactorTest {

  private static final String TOKEN = "sk-ant-secret-0123456789";

  @Test
  void aSecretInOnePieceIsReplaced() {
    StreamRedactor redactor = new StreamRedactor(List.of(TOKEN));

    String out = redactor.redact("token=" + TOKEN + " end") + redactor.finish();

    assertThat(out).isEqualTo("token=[REDACTED] end");
  }

  @Test
  void aSecretSplitAcrossEveryPossiblePairOfPiecesIsNeverPublished() {
    String text = "before " + TOKEN + " after";
    for (int cut = 0; cut <= text.length(); cut++) {
      StreamRedactor redactor = new StreamRedactor(List.of(TOKEN));
      String first = redactor.redact(text.substring(0, cut));
      String second = redactor.redact(text.substring(cut));
      String rest = redactor.finish();

      assertThat(first + second + rest).as("cut at %d", cut).isEqualTo("before [REDACTED] after");
      assertThat(first).as("cut at %d", cut).doesNotContain(TOKEN.substring(0, 8));
    }
  }

  @Test
  void aSecretArrivingOneCharacterAtATimeIsReplaced() {
    StreamRedactor redactor = new StreamRedactor(List.of(TOKEN));
    StringBuilder out = new StringBuilder();
    for (char c : ("x" + TOKEN + "y").toCharArray()) {
      out.append(redactor.redact(String.valueOf(c)));
    }
    out.append(redactor.finish());

    assertThat(out).hasToString("x[REDACTED]y");
  }

  @Test
  void whatCouldBeginASecretIsHeldOnlyUntilTheNextPieceSaysItDoesNot() {
    StreamRedactor redactor = new StreamRedactor(List.of(TOKEN));

    assertThat(redactor.redact("answer sk-ant")).isEqualTo("answer ");
    assertThat(redactor.redact("ique")).isEqualTo("sk-antique");
    assertThat(redactor.finish()).isEmpty();
  }

  @Test
  void theLongerOfTwoOverlappingSecretsWins() {
    StreamRedactor redactor = new StreamRedactor(List.of("abc", "abcdef"));

    assertThat(redactor.redact("xabcdefy") + redactor.finish()).isEqualTo("x[REDACTED]y");
  }

  @Test
  void withoutSecretsNothingIsHeld() {
    StreamRedactor redactor = StreamRedactor.none();

    assertThat(redactor.redact("sk-ant")).isEqualTo("sk-ant");
    assertThat(redactor.finish()).isEmpty();
  }
}
