package dev.berth.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ByteSizeTest {

  @Test
  void aSizeIsBytesOrABinaryMultiple() {
    assertThat(ByteSize.parse("--max-disk", "4096")).isEqualTo(4096);
    assertThat(ByteSize.parse("--max-disk", "512M")).isEqualTo(512L << 20);
    assertThat(ByteSize.parse("--max-disk", "10G")).isEqualTo(10L << 30);
    assertThat(ByteSize.parse("--max-disk", "10GiB")).isEqualTo(10L << 30);
    assertThat(ByteSize.parse("--max-disk", "1tb")).isEqualTo(1L << 40);
    assertThat(ByteSize.parse("--max-disk", "64k")).isEqualTo(64L << 10);
  }

  @Test
  void whatIsNotASizeIsRefusedNamingTheOptionAndTheValue() {
    assertThatThrownBy(() -> ByteSize.parse("--max-disk", "ten gigs"))
        .hasMessage(
            "--max-disk must be a size such as 512M, 10G or 1T (binary units), was \"ten gigs\"");
    assertThatThrownBy(() -> ByteSize.parse("--max-disk", "-1G"))
        .hasMessageContaining("was \"-1G\"");
    assertThatThrownBy(() -> ByteSize.parse("--max-disk", "99999999999999T"))
        .hasMessage("--max-disk is too large: \"99999999999999T\" (at most 8388607T)");
  }
}
