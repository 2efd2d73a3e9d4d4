package dev.berth.agent.output;

import static dev.berth.agent.output.TestBytes.concat;
import static dev.berth.agent.output.TestBytes.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

class Utf8BoundaryTest {
  private static final int[] CODE_POINTS = {
    0xE9, 0x80, 0x7FF, 0x800, 0x20AC, 0xD7FF, 0xE000, 0xFFFD, 0xFFFF, 0x10000, 0x1F600, 0x10FFFF
  };
  private static final byte[] PREFIX = utf8("ab");

  @Test
  void aChunkEndingInsideAMultiByteCharacterBacksOffToItsStartAtEverySplit() {
    for (int codePoint : CODE_POINTS) {
      byte[] encoded = utf8(Character.toString(codePoint));
      for (int split = 1; split < encoded.length; split++) {
        byte[] chunk = concat(PREFIX, Arrays.copyOf(encoded, split));

        assertThat(Utf8Boundary.cut(chunk, chunk.length, true))
            .as("U+%X cut after %d of %d bytes", codePoint, split, encoded.length)
            .isEqualTo(PREFIX.length);
        assertThat(Utf8Boundary.incompleteTail(chunk, chunk.length)).isEqualTo(split);
      }
    }
  }

  @Test
  void aChunkEndingAfterACompleteCharacterIsSentWhole() {
    for (int codePoint : CODE_POINTS) {
      byte[] chunk = concat(PREFIX, utf8(Character.toString(codePoint)));

      assertThat(Utf8Boundary.cut(chunk, chunk.length, true)).isEqualTo(chunk.length);
      assertThat(Utf8Boundary.incompleteTail(chunk, chunk.length)).isZero();
    }
  }

  @Test
  void aChunkThatIsOnlyAnIncompleteCharacterHasNoBoundaryAndIsSentRaw() {
    for (int codePoint : CODE_POINTS) {
      byte[] encoded = utf8(Character.toString(codePoint));
      for (int split = 1; split < encoded.length; split++) {
        assertThat(Utf8Boundary.cut(encoded, split, true)).isEqualTo(split);
        assertThat(Utf8Boundary.incompleteTail(encoded, split)).isEqualTo(split);
      }
    }
  }

  @Test
  void nothingIsHeldWhenNoMoreBytesCanFollow() {
    byte[] chunk = concat(PREFIX, new byte[] {(byte) 0xF0, (byte) 0x9F, (byte) 0x98});

    assertThat(Utf8Boundary.cut(chunk, chunk.length, false)).isEqualTo(chunk.length);
  }

  @Test
  void onlyTheGivenLengthOfTheArrayCounts() {
    byte[] bytes = concat(PREFIX, utf8("€"));

    assertThat(Utf8Boundary.cut(bytes, 4, true)).isEqualTo(2);
    assertThat(Utf8Boundary.cut(bytes, 2, true)).isEqualTo(2);
    assertThatThrownBy(() -> Utf8Boundary.cut(bytes, 6, true))
        .isInstanceOf(IndexOutOfBoundsException.class);
  }

  @Test
  void aLeadFollowedByANonContinuationByteIsNeverHeld() {
    assertNotHeld(0x61, 0xE2, 0x41);
    assertNotHeld(0x61, 0xF0, 0x9F, 0x41);
    assertNotHeld(0x61, 0xC3, 0x41);
  }

  @Test
  void bytesThatNeverAppearInUtf8AreNeverHeld() {
    for (int b : new int[] {0xC0, 0xC1, 0xF5, 0xF7, 0xF8, 0xFB, 0xFC, 0xFE, 0xFF}) {
      assertNotHeld(0x61, b);
      assertNotHeld(b);
    }
  }

  @Test
  void prefixesOfOverlongSurrogateOrTooLargeEncodingsAreNeverHeld() {
    assertNotHeld(0x61, 0xE0, 0x80);
    assertNotHeld(0x61, 0xE0, 0x9F);
    assertNotHeld(0x61, 0xE0, 0x9F, 0xBF);
    assertNotHeld(0x61, 0xED, 0xA0);
    assertNotHeld(0x61, 0xED, 0xBF, 0xBF);
    assertNotHeld(0x61, 0xF0, 0x80);
    assertNotHeld(0x61, 0xF0, 0x8F, 0xBF);
    assertNotHeld(0x61, 0xF4, 0x90);
    assertNotHeld(0x61, 0xF4, 0xBF, 0xBF);
  }

  @Test
  void theEdgesOfTheAllowedSecondByteRangesAreHeld() {
    assertHeld(1, 0x61, 0xE0, 0xA0);
    assertHeld(1, 0x61, 0xED, 0x9F);
    assertHeld(1, 0x61, 0xF0, 0x90);
    assertHeld(1, 0x61, 0xF4, 0x8F, 0xBF);
  }

  @Test
  void continuationBytesBeyondWhatTheLeadAnnouncedAreNeverHeld() {
    assertNotHeld(0x61, 0xC3, 0xA9, 0x80);
    assertNotHeld(0x61, 0xE2, 0x82, 0xAC, 0x80);
    assertNotHeld(0x61, 0xF0, 0x9F, 0x98, 0x80, 0x80);
  }

  @Test
  void aChunkOfContinuationBytesOnlyIsSentWhole() {
    for (int length = 1; length <= 6; length++) {
      byte[] chunk = new byte[length];
      Arrays.fill(chunk, (byte) 0x80);

      assertThat(Utf8Boundary.cut(chunk, length, true)).isEqualTo(length);
      assertThat(Utf8Boundary.incompleteTail(chunk, length)).isZero();
    }
  }

  @Test
  void anEmptyChunkIsEmpty() {
    assertThat(Utf8Boundary.cut(new byte[0], 0, true)).isZero();
  }

  @Test
  void heldTailsAreExactlyTheIncompletePrefixesThatSomeCompletionMakesValid() {
    for (int first = 0; first < 256; first++) {
      assertAgreesWithTheDecoder(bytes(first));
      for (int second = 0; second < 256; second++) {
        assertAgreesWithTheDecoder(bytes(first, second));
      }
    }
    Random random = new Random(42);
    int[] interesting = {0x41, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0};
    int[] more = {0xE1, 0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xFF};
    int[] alphabet = concatInts(interesting, more);
    for (int round = 0; round < 20_000; round++) {
      byte[] chunk = new byte[3 + random.nextInt(4)];
      for (int i = 0; i < chunk.length; i++) {
        chunk[i] =
            (byte)
                (random.nextBoolean()
                    ? alphabet[random.nextInt(alphabet.length)]
                    : random.nextInt(256));
      }
      assertAgreesWithTheDecoder(chunk);
    }
  }

  private static void assertAgreesWithTheDecoder(byte[] chunk) {
    int expected = completableTail(chunk);
    if (Utf8Boundary.incompleteTail(chunk, chunk.length) != expected) {
      throw new AssertionError(
          "incompleteTail of " + Arrays.toString(chunk) + " should be " + expected);
    }
  }

  /** The oracle: the trailing 1..3 bytes that the JDK's strict decoder accepts once completed. */
  private static int completableTail(byte[] chunk) {
    for (int tail = 1; tail <= Math.min(3, chunk.length); tail++) {
      byte[] suffix = Arrays.copyOfRange(chunk, chunk.length - tail, chunk.length);
      if (isIncompleteButCompletable(suffix)) {
        return tail;
      }
    }
    return 0;
  }

  private static boolean isIncompleteButCompletable(byte[] suffix) {
    int lead = suffix[0] & 0xFF;
    int announced = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 0;
    if (lead >= 0xF8 || announced <= suffix.length) {
      return false;
    }
    for (int second = 0x80; second <= 0xBF; second++) {
      byte[] completed = Arrays.copyOf(suffix, announced);
      for (int i = suffix.length; i < announced; i++) {
        completed[i] = (byte) (i == 1 ? second : 0x80);
      }
      if (decodes(completed)) {
        return true;
      }
    }
    return false;
  }

  private static boolean decodes(byte[] bytes) {
    CharsetDecoder decoder =
        StandardCharsets.UTF_8
            .newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT);
    return !decoder.decode(ByteBuffer.wrap(bytes), CharBuffer.allocate(4), true).isError();
  }

  private static void assertNotHeld(int... values) {
    byte[] chunk = bytes(values);
    assertThat(Utf8Boundary.cut(chunk, chunk.length, true))
        .as("cut of %s", Arrays.toString(values))
        .isEqualTo(chunk.length);
    assertThat(Utf8Boundary.incompleteTail(chunk, chunk.length)).isZero();
  }

  private static void assertHeld(int sent, int... values) {
    byte[] chunk = bytes(values);
    assertThat(Utf8Boundary.cut(chunk, chunk.length, true)).isEqualTo(sent);
  }

  private static byte[] bytes(int... values) {
    byte[] bytes = new byte[values.length];
    for (int i = 0; i < values.length; i++) {
      bytes[i] = (byte) values[i];
    }
    return bytes;
  }

  private static int[] concatInts(int[] a, int[] b) {
    int[] all = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, all, a.length, b.length);
    return all;
  }
}
