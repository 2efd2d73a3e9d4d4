package dev.berth.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** What berth logs writes to a terminal asks it nothing and keeps every other byte. */
class QuerySafeOutputTest {

  @Test
  void aCursorPositionQueryCutAcrossWritesIsBlankedAndAnUnfinishedTailIsReleased()
      throws IOException {
    ByteArrayOutputStream terminal = new ByteArrayOutputStream();
    QuerySafeOutput out = new QuerySafeOutput(terminal);

    out.write("vim\u001b[6".getBytes(StandardCharsets.UTF_8));
    out.write("n\u001b]11;?\u0007done \u001b[1".getBytes(StandardCharsets.UTF_8));
    out.release();

    assertThat(terminal.toString(StandardCharsets.UTF_8))
        .isEqualTo("vim" + "\0".repeat(4) + "\0".repeat(7) + "done \u001b[1");
  }
}
