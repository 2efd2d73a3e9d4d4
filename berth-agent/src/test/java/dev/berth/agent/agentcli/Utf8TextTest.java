package dev.berth.agent.agentcli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class Utf8TextTest {

  @Test
  void aCharacterSplitAcrossPiecesIsHeldUntilItCompletes() {
    byte[] bytes = "a€b".getBytes(StandardCharsets.UTF_8); // € is three bytes
    Utf8Text text = new Utf8Text();

    assertThat(text.decode(bytes, 0, 2)).isEqualTo("a");
    assertThat(text.decode(bytes, 2, 1)).isEmpty();
    assertThat(text.decode(bytes, 3, 2)).isEqualTo("€b");
    assertThat(text.finish()).isEmpty();
  }

  @Test
  void malformedBytesBecomeReplacementCharacters() {
    Utf8Text text = new Utf8Text();

    assertThat(text.decode(new byte[] {'x', (byte) 0xFF, 'y'}, 0, 3)).isEqualTo("x\uFFFDy");
  }

  @Test
  void aCharacterLeftIncompleteAtTheEndBecomesAReplacementCharacter() {
    byte[] euro = "€".getBytes(StandardCharsets.UTF_8);
    Utf8Text text = new Utf8Text();

    assertThat(text.decode(euro, 0, 2)).isEmpty();
    assertThat(text.finish()).isEqualTo("\uFFFD");
  }
}
