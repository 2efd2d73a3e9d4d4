package dev.berth.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.client.TranscriptEntry;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** {@code berth transcript}'s line per entry for the usage, retry and warning entries. */
class TranscriptLinesTest {

  @Test
  void aUsageLineHasTheTurnsOwnTokensAndCostThenTheConversationsTotals() {
    assertThat(
            TranscriptCommand.line(
                entry(
                    "usage",
                    "\"inputTokens\":10,\"outputTokens\":5,\"costUsd\":1.4E-4,"
                        + "\"totalInputTokens\":20,\"totalOutputTokens\":10,"
                        + "\"totalCostUsd\":2.8E-4")))
        .isEqualTo("usage  10 in, 5 out, $1.4E-4 (conversation: 20 in, 10 out, $2.8E-4)");
    assertThat(TranscriptCommand.line(entry("usage", "\"inputTokens\":3,\"outputTokens\":4")))
        .isEqualTo("usage  3 in, 4 out");
  }

  @Test
  void aRetryLineSaysWhichAttemptWhenAndWhy() {
    assertThat(
            TranscriptCommand.line(
                entry(
                    "retry",
                    "\"attempt\":2,\"maxAttempts\":10,\"delayMs\":1230,\"status\":502,"
                        + "\"message\":\"server_error\"")))
        .isEqualTo("retry  attempt 2 of 10 in 1230 ms: 502 server_error");
    assertThat(TranscriptCommand.line(entry("retry", "\"attempt\":1,\"message\":\"reset\"")))
        .isEqualTo("retry  attempt 1: reset");
  }

  @Test
  void aWarningLineIsItsMessage() {
    assertThat(
            TranscriptCommand.line(
                entry("warning", "\"message\":\"Reading additional input from stdin...\"")))
        .isEqualTo("warning  Reading additional input from stdin...");
  }

  private static TranscriptEntry entry(String type, String fields) {
    return new TranscriptEntry(
        1,
        Instant.EPOCH,
        "x-1",
        type,
        "{\"seq\":1,\"at\":\"1970-01-01T00:00:00Z\",\"execution\":\"x-1\",\"type\":\""
            + type
            + "\","
            + fields
            + "}");
  }
}
