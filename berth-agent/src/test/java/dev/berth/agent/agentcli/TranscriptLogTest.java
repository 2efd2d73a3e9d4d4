package dev.berth.agent.agentcli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
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

  @Test
  void aReadAfterAnyCursorGivesTheEntriesAfterItAlsoOnceReopened() {
    TranscriptLog log = TranscriptLog.open(state, Clock.systemUTC());
    int total = 3 * TranscriptLog.STRIDE + 5;
    for (int i = 1; i <= total; i++) {
      assertThat(log.append("e1", new TranscriptEvent.AssistantText("text " + i))).isEqualTo(i);
    }

    for (TranscriptLog each : List.of(log, TranscriptLog.open(state, Clock.systemUTC()))) {
      assertThat(each.size()).isEqualTo(total);
      for (int cursor = 0; cursor <= total; cursor++) {
        int max = 1 + cursor % 70;
        List<Long> seqs =
            each.after(cursor, max).stream().map(e -> e.path("seq").asLong()).toList();
        List<Long> expected =
            java.util.stream.LongStream.rangeClosed(cursor + 1, Math.min(total, cursor + max))
                .boxed()
                .toList();
        assertThat(seqs).as("after %d, at most %d", cursor, max).isEqualTo(expected);
      }
      assertThat(each.after(total + 10, 5)).isEmpty();
    }
  }

  @Test
  void anEntryTornByACrashIsCutOffAtOpenAndTheNumberingGoesOnFromTheLastWholeOne()
      throws Exception {
    TranscriptLog log = TranscriptLog.open(state, Clock.systemUTC());
    log.append("e1", new TranscriptEvent.AssistantText("one"));
    log.append("e1", new TranscriptEvent.AssistantText("two"));
    Path file = state.resolve(TranscriptLog.FILE);
    Files.writeString(file, "{\"seq\":3,\"at\":\"20", StandardOpenOption.APPEND);

    TranscriptLog reopened = TranscriptLog.open(state, Clock.systemUTC());

    assertThat(reopened.size()).isEqualTo(2);
    assertThat(reopened.append("e2", new TranscriptEvent.AssistantText("three"))).isEqualTo(3);
    assertThat(reopened.after(0, 10))
        .extracting(e -> e.path("text").asString())
        .containsExactly("one", "two", "three");
    assertThat(Files.readAllLines(file)).hasSize(3);
  }

  @Test
  void aFullTranscriptEndsWithOneEntryThatSaysSoAndKeepsNothingAfterItAlsoOnceReopened()
      throws Exception {
    long cap = 16 << 10;
    TranscriptLog log = TranscriptLog.open(state, Clock.systemUTC(), cap);
    String kilobyte = "x".repeat(1000);
    long seq = 0;
    for (int i = 0; i < 40; i++) {
      seq = log.append("e1", new TranscriptEvent.AssistantText(kilobyte));
    }

    List<tools.jackson.databind.JsonNode> all = log.after(0, 100);
    assertThat(all).hasSizeBetween(5, 16);
    assertThat(seq).isEqualTo(all.size());
    assertThat(all.getLast().path("type").asString()).isEqualTo("error");
    assertThat(all.getLast().path("message").asString()).isEqualTo(TranscriptLog.FULL);
    assertThat(all.getLast().path("execution").asString()).isEqualTo("berth");
    assertThat(all.subList(0, all.size() - 1))
        .allSatisfy(e -> assertThat(e.path("type").asString()).isEqualTo("assistant-text"));
    assertThat(Files.size(state.resolve(TranscriptLog.FILE))).isLessThanOrEqualTo(cap);

    TranscriptLog reopened = TranscriptLog.open(state, Clock.systemUTC(), cap);
    assertThat(reopened.append("e2", new TranscriptEvent.AssistantText("more"))).isEqualTo(seq);
    assertThat(reopened.size()).isEqualTo(seq);
  }

  @Test
  void aPromptsErrorThatReadsLikeTheFullMarkerDoesNotFillTheTranscript() {
    TranscriptLog log = TranscriptLog.open(state, Clock.systemUTC());
    // A CLI's event is a prompt's: the session can make its CLI say anything.
    log.append("x-1", new TranscriptEvent.Failure(TranscriptLog.FULL));

    TranscriptLog reopened = TranscriptLog.open(state, Clock.systemUTC());

    assertThat(reopened.append("x-2", new TranscriptEvent.AssistantText("kept"))).isEqualTo(2);
  }

  @Test
  void aReadOfAStoppedRuntimesTranscriptLeavesATornEntryForItsOwnOpenToCut() throws Exception {
    TranscriptLog log = TranscriptLog.open(state, Clock.systemUTC());
    log.append("e1", new TranscriptEvent.AssistantText("one"));
    Path file = state.resolve(TranscriptLog.FILE);
    Files.writeString(file, "{\"seq\":2", StandardOpenOption.APPEND);
    long size = Files.size(file);

    assertThat(TranscriptLog.read(state, Clock.systemUTC()).after(0, 10)).hasSize(1);
    assertThat(Files.size(file)).isEqualTo(size);
  }

  @Test
  void blankLinesInAnOlderFileAreNoEntries() throws Exception {
    Path file = state.resolve(TranscriptLog.FILE);
    Files.writeString(
        file,
        "{\"seq\":1,\"type\":\"assistant-text\",\"text\":\"a\"}\n\n  \n"
            + "{\"seq\":2,\"type\":\"assistant-text\",\"text\":\"b\"}\n");

    TranscriptLog log = TranscriptLog.open(state, Clock.systemUTC());

    assertThat(log.size()).isEqualTo(2);
    assertThat(log.after(1, 10)).extracting(e -> e.path("text").asString()).containsExactly("b");
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
