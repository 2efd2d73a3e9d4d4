package dev.berth.core.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.berth.core.error.VersionConflictException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** A compare-and-set is read again after a conflict, a bounded number of times. */
class RetryTest {

  @Test
  void anAttemptThatMeetsConflictsIsRunAgainUntilItWrites() {
    AtomicInteger runs = new AtomicInteger();

    String written =
        Retry.onConflict(
            () -> {
              if (runs.incrementAndGet() < 3) {
                throw new VersionConflictException("session s", 1, 2);
              }
              return "written";
            });

    assertThat(written).isEqualTo("written");
    assertThat(runs).hasValue(3);
  }

  @Test
  void aRecordThatAlwaysMovesFailsWithTheLastConflictAfterTheBound() {
    AtomicInteger runs = new AtomicInteger();

    assertThatThrownBy(
            () ->
                Retry.onConflict(
                    () -> {
                      throw new VersionConflictException("session s", runs.incrementAndGet(), 99);
                    }))
        .isInstanceOf(VersionConflictException.class)
        .hasMessageContaining("session s");
    assertThat(runs).hasValue(Retry.ATTEMPTS);
  }

  @Test
  void anythingElseIsNotRetried() {
    AtomicInteger runs = new AtomicInteger();

    assertThatThrownBy(
            () ->
                Retry.onConflict(
                    () -> {
                      runs.incrementAndGet();
                      throw new IllegalStateException("not a conflict");
                    }))
        .isInstanceOf(IllegalStateException.class);
    assertThat(runs).hasValue(1);
  }
}
