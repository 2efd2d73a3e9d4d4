package dev.berth.agent.agentcli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A CLI's standard error as warnings and errors of the transcript, by the documented rule. */
class StderrLinesTest {

  @Test
  void aLevelWordAmongTheFirstThreeDecidesAndWithoutOneAFailureWordMakesAnError() {
    assertThat(StderrLines.isError("Reading additional input from stdin...")).isFalse();
    assertThat(
            StderrLines.isError(
                "WARNING: proceeding, even though we could not create PATH aliases: Refusing"))
        .isFalse();
    assertThat(
            StderrLines.isError(
                "(node:7) [DEP0040] DeprecationWarning: The `punycode` module failed"))
        .isFalse();
    assertThat(StderrLines.isError("2026-12-05T18:00:00.000Z  WARN codex_core: cannot read x"))
        .isFalse();
    assertThat(StderrLines.isError("[info] retrying")).isFalse();
    assertThat(StderrLines.isError("Error: ENOENT: no such file or directory")).isTrue();
    assertThat(StderrLines.isError("TypeError: x is not a function")).isTrue();
    assertThat(StderrLines.isError("2026-12-05T18:00:00.000Z ERROR codex_core: boom")).isTrue();
    assertThat(StderrLines.isError("thread 'main' panicked at src/main.rs:1:1")).isTrue();
    assertThat(StderrLines.isError("permission denied")).isTrue();
  }

  @Test
  void linesArriveWholeWhateverTheChunksAndAnIndentedLineContinuesTheEntryBeforeIt() {
    StderrLines lines = new StderrLines();
    List<TranscriptEvent> events = new ArrayList<>();

    events.addAll(lines.take("Reading additional "));
    assertThat(events).isEmpty();
    events.addAll(lines.take("input from stdin...\nTypeError: boom\n    at f (x.js:1:1)\n"));
    events.addAll(lines.take("\n  \nlast words without an end"));
    events.addAll(lines.finish());

    assertThat(events)
        .containsExactly(
            new TranscriptEvent.Warning("Reading additional input from stdin..."),
            new TranscriptEvent.Failure("TypeError: boom\n    at f (x.js:1:1)"),
            new TranscriptEvent.Warning("last words without an end"));
  }

  @Test
  void aRunGivesAtMostAHundredEntriesThenOneWarningThatTheRestIsInTheOutput() {
    StderrLines lines = new StderrLines();
    List<TranscriptEvent> events = new ArrayList<>();

    for (int i = 0; i < 150; i++) {
      events.addAll(lines.take("warning " + i + "\n"));
    }
    events.addAll(lines.finish());

    assertThat(events).hasSize(StderrLines.MAX_ENTRIES + 1);
    assertThat(events.getLast()).isEqualTo(new TranscriptEvent.Warning(StderrLines.MORE));
    assertThat(lines.take("x".repeat(10_000) + "\n")).isEmpty();
  }

  @Test
  void anEntryIsCutAtItsLimit() {
    List<TranscriptEvent> events = new StderrLines().take("e".repeat(10_000) + "\n");

    assertThat(((TranscriptEvent.Warning) events.getFirst()).message())
        .hasSize(StderrLines.MAX_ENTRY + 1)
        .endsWith("…");
  }

  @Test
  void aLineThatNeverEndsIsTakenOnceItOutgrowsAnEntry() {
    StderrLines lines = new StderrLines();

    List<TranscriptEvent> events = lines.take("w".repeat(StderrLines.MAX_ENTRY + 10));

    assertThat(events).hasSize(1);
    assertThat(((TranscriptEvent.Warning) events.getFirst()).message()).startsWith("www");
    assertThat(lines.finish()).isEmpty();
  }

  @Test
  void aSecretAcrossTheCutIsRedactedBeforeTheEntryIsCut() {
    String secret = "sk-secret-token-0123456789";
    StderrLines lines = new StderrLines(text -> text.replace(secret, "[REDACTED]"));
    String line = "e".repeat(StderrLines.MAX_ENTRY - 5) + secret + "\n";

    List<TranscriptEvent> events = lines.take(line);

    String message = ((TranscriptEvent.Warning) events.getFirst()).message();
    assertThat(message).doesNotContain("sk-secre").startsWith("eeee");
    assertThat(message).contains("[REDA");
  }
}
