package dev.berth.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class OutputCursorTest {

  private static OutputEvent.Chunk chunk(long offset, String text) {
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    return new OutputEvent.Chunk(offset, bytes, offset + bytes.length);
  }

  private static String text(OutputCursor.Verdict verdict) {
    return new String(((OutputCursor.Deliver) verdict).chunk().bytes(), StandardCharsets.UTF_8);
  }

  @Test
  void deliversAChunkThatStartsAtTheCursorAndMovesIt() {
    OutputCursor cursor = new OutputCursor(5);
    assertThat(text(cursor.accept(chunk(5, "abc")))).isEqualTo("abc");
    assertThat(cursor.position()).isEqualTo(8);
  }

  @Test
  void dropsAChunkThatEndsAtOrBeforeTheCursor() {
    OutputCursor cursor = new OutputCursor(8);
    assertThat(cursor.accept(chunk(5, "abc"))).isInstanceOf(OutputCursor.Drop.class);
    assertThat(cursor.accept(chunk(0, "abc"))).isInstanceOf(OutputCursor.Drop.class);
    assertThat(cursor.position()).isEqualTo(8);
  }

  @Test
  void slicesTheOverlapOffAChunkThatStartsBeforeTheCursor() {
    OutputCursor cursor = new OutputCursor(7);
    OutputCursor.Verdict verdict = cursor.accept(chunk(5, "abcdef"));
    assertThat(text(verdict)).isEqualTo("cdef");
    assertThat(((OutputCursor.Deliver) verdict).chunk().offset()).isEqualTo(7);
    assertThat(cursor.position()).isEqualTo(11);
  }

  @Test
  void reportsAGapWhenAChunkStartsAfterTheCursor() {
    OutputCursor cursor = new OutputCursor(3);
    assertThat(cursor.accept(chunk(5, "abc"))).isEqualTo(new OutputCursor.Gap(3, 5));
    assertThat(cursor.position()).isEqualTo(3);
  }

  @Test
  void backsOffAsTheContractSays() {
    assertThat(Backoff.delay(0)).isEqualTo(Duration.ofMillis(250));
    assertThat(Backoff.delay(1)).isEqualTo(Duration.ofMillis(500));
    assertThat(Backoff.delay(4)).isEqualTo(Duration.ofMillis(4000));
    assertThat(Backoff.delay(5)).isEqualTo(Duration.ofMillis(5000));
    assertThat(Backoff.delay(40)).isEqualTo(Duration.ofMillis(5000));
  }
}
