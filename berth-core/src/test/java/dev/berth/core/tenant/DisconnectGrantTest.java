package dev.berth.core.tenant;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.berth.core.error.InvalidValueException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class DisconnectGrantTest {

  @Test
  void continueKeepsTheWorkloadForABoundedGrace() {
    assertThat(DisconnectGrant.keepFor(Duration.ofMinutes(30)).toString())
        .isEqualTo("continue for 1800 s");
    assertThat(DisconnectGrant.keepFor(DisconnectGrant.MAX_GRACE).grace())
        .isEqualTo(Duration.ofDays(7));
    assertThatThrownBy(() -> DisconnectGrant.keepFor(Duration.ofDays(8)))
        .isInstanceOf(InvalidValueException.class)
        .hasMessageContaining("between 0 s and 604800 s")
        .hasMessageContaining("was 691200 s");
    assertThatThrownBy(() -> DisconnectGrant.keepFor(Duration.ofSeconds(-1)))
        .isInstanceOf(InvalidValueException.class);
  }

  @Test
  void stopTakesNoGrace() {
    assertThat(DisconnectGrant.stop().grace()).isZero();
    assertThatThrownBy(
            () -> new DisconnectGrant(DisconnectGrant.Policy.STOP, Duration.ofSeconds(5)))
        .isInstanceOf(InvalidValueException.class)
        .hasMessageContaining("takes no grace");
  }

  @Test
  void policiesParseFromTheirWireNamesOnly() {
    assertThat(DisconnectGrant.Policy.parse("continue")).isEqualTo(DisconnectGrant.Policy.CONTINUE);
    assertThat(DisconnectGrant.Policy.parse("stop")).isEqualTo(DisconnectGrant.Policy.STOP);
    assertThatThrownBy(() -> DisconnectGrant.Policy.parse("STOP"))
        .isInstanceOf(InvalidValueException.class)
        .hasMessageContaining("\"continue\" or \"stop\", was \"STOP\"");
  }
}
