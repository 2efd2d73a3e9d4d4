package dev.berth.server.reconcile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.berth.core.session.SessionId;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class FailureBackoffTest {

  private static final SessionId A = new SessionId("a".repeat(32));
  private static final SessionId B = new SessionId("b".repeat(32));

  private final FailureBackoff backoff =
      new FailureBackoff(Duration.ofMillis(100), Duration.ofSeconds(5));

  @Test
  void failuresInARowDoubleTheWaitUpToTheCap() {
    List<Long> waits = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      waits.add(backoff.failed(A).toMillis());
    }

    assertThat(waits)
        .containsExactly(100L, 200L, 400L, 800L, 1600L, 3200L, 5000L, 5000L, 5000L, 5000L);
  }

  @Test
  void aPassThatDoesNotFailStartsTheCountAgain() {
    backoff.failed(A);
    backoff.failed(A);
    backoff.failed(A);

    backoff.passed(A);

    assertThat(backoff.inARow(A)).isZero();
    assertThat(backoff.failed(A)).isEqualTo(Duration.ofMillis(100));
  }

  @Test
  void eachSessionHasItsOwnCount() {
    backoff.failed(A);
    backoff.failed(A);

    assertThat(backoff.failed(B)).isEqualTo(Duration.ofMillis(100));
    assertThat(backoff.failed(A)).isEqualTo(Duration.ofMillis(400));
  }

  @Test
  void aSessionThatFailsForeverStaysAtTheCapWithoutOverflow() {
    Duration last = Duration.ZERO;
    for (int i = 0; i < 10_000; i++) {
      last = backoff.failed(A);
    }

    assertThat(last).isEqualTo(Duration.ofSeconds(5));
  }

  @Test
  void aBackoffThatEndsBelowItsStartIsRefused() {
    assertThatThrownBy(() -> new FailureBackoff(Duration.ofSeconds(2), Duration.ofSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("PT2S to PT1S");
  }
}
