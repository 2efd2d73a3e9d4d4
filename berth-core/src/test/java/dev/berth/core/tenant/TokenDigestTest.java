package dev.berth.core.tenant;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.berth.core.error.InvalidValueException;
import org.junit.jupiter.api.Test;

class TokenDigestTest {

  @Test
  void isTheSha256OfTheTokenInLowercaseHex() {
    assertThat(TokenDigest.of("abc").hex())
        .isEqualTo("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    assertThat(TokenDigest.of("abc").bytes()).hasSize(32);
  }

  @Test
  void rejectsAnythingButSixtyFourLowercaseHexCharacters() {
    assertThatThrownBy(() -> new TokenDigest("ABC"))
        .isInstanceOf(InvalidValueException.class)
        .hasMessageContaining("64 lowercase hex characters");
    assertThatThrownBy(() -> new TokenDigest("A".repeat(64)))
        .isInstanceOf(InvalidValueException.class);
  }
}
