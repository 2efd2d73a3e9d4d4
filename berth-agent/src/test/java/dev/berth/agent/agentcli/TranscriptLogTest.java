package dev.berth.agent.agentcli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TranscriptLogTest {

  @TempDir Path state;

  @Test
  void aWaitForTheNextEntryEndsWithTheEntry() throws Exception {
    TranscriptLog log = TranscriptLog.open(state, Clock.systemUTC());
    CompletableFuture<Boolean> waited = waitBeyond(log, 0);

    log.append("e1", new TranscriptEvent.AssistantText("hello"));

    assertThat(waited.get(10, TimeUnit.SECONDS)).isTrue();
    assertThat(log.after(0, 10))
        .singleElement()
        .satisfies(e -> assertThat(e.path("text").asString()).isEqualTo("hello"));
  }

  @Test
  void closingTheLogEndsAWaitAtOnceWithoutAnEntry() throws Exception {
    TranscriptLog log = TranscriptLog.open(state, Clock.systemUTC());
    CompletableFuture<Boolean> waited = waitBeyond(log, 0);

    log.close();

    // The waiter asked for a minute: closing (the runtime is being removed) ends it now.
    assertThat(waited.get(10, TimeUnit.SECONDS)).isFalse();
    assertThat(log.closed()).isTrue();
    assertThat(log.awaitBeyond(0, Duration.ofMinutes(1))).isFalse();
  }

  /** Starts a wait for an entry after {@code cursor}; answers once the waiter is waiting. */
  private static CompletableFuture<Boolean> waitBeyond(TranscriptLog log, long cursor) {
    CompletableFuture<Boolean> waited = new CompletableFuture<>();
    Thread waiter =
        Thread.ofVirtual()
            .start(
                () -> {
                  try {
                    waited.complete(log.awaitBeyond(cursor, Duration.ofMinutes(1)));
                  } catch (InterruptedException e) {
                    waited.completeExceptionally(e);
                  }
                });
    while (waiter.getState() != Thread.State.TIMED_WAITING && !waited.isDone()) {
      Thread.onSpinWait();
    }
    return waited;
  }
}
