package dev.berth.core.execution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.berth.core.error.InvalidValueException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class ExecutionRequestTest {

  @Test
  void defaultsToATimeoutOfOneHour() {
    assertThat(ExecutionRequest.of("true").effectiveTimeout()).isEqualTo(Duration.ofHours(1));
  }

  @Test
  void refusesABlankCommand() {
    assertThatThrownBy(() -> ExecutionRequest.of(" \n"))
        .isInstanceOf(InvalidValueException.class)
        .hasMessageContaining("blank");
  }

  @Test
  void refusesACommandOverSixtyFourKibibytes() {
    assertThat(ExecutionRequest.of("x".repeat(64 * 1024)).command()).hasSize(64 * 1024);
    assertThatThrownBy(() -> ExecutionRequest.of("é".repeat(32 * 1024 + 1)))
        .isInstanceOf(InvalidValueException.class)
        .hasMessageContaining("65538");
  }

  @Test
  void refusesANulCharacter() {
    assertThatThrownBy(() -> ExecutionRequest.of("echo a\0b"))
        .isInstanceOf(InvalidValueException.class);
  }

  @Test
  void refusesATimeoutOutsideOneSecondToOneDay() {
    assertThatThrownBy(() -> ExecutionRequest.of("true", Duration.ofMillis(999)))
        .isInstanceOf(InvalidValueException.class);
    assertThatThrownBy(() -> ExecutionRequest.of("true", Duration.ofHours(24).plusSeconds(1)))
        .isInstanceOf(InvalidValueException.class);
    assertThat(ExecutionRequest.of("true", Duration.ofHours(24)).effectiveTimeout())
        .isEqualTo(Duration.ofHours(24));
  }
}
