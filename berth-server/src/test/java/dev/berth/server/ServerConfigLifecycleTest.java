package dev.berth.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class ServerConfigLifecycleTest {

  @Test
  void anOperationTimeoutUpToADayIsTaken() {
    assertThat(
            ServerConfig.Lifecycle.defaults()
                .withOperationTimeout(Duration.ofHours(24))
                .operationTimeout())
        .isEqualTo(Duration.ofHours(24));
  }

  @Test
  void anOperationTimeoutOverADayIsRefusedSayingWhatItWouldCost() {
    assertThatThrownBy(
            () -> ServerConfig.Lifecycle.defaults().withOperationTimeout(Duration.ofDays(2)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--operation-timeout must be at most 24h, got PT48H")
        .hasMessageContaining("quota slot");
  }
}
