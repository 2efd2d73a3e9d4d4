package dev.berth.agent.agentcli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A turn's own usage from the running totals the CLIs report, on the streams the real CLIs printed
 * (three turns of one Claude Code conversation, two of a Codex thread), the totals kept through the
 * conversation's file between turns as a node restart or a restore keeps them.
 */
class UsageLedgerTest {

  private static final Optional<String> CLAUDE =
      Optional.of("7a151c96-2fb0-461d-8d94-0d6d8c03bb98");

  @TempDir Path state;

  @Test
  void eachClaudeTurnCostsItsOwnShareOfTheRunningTotalAlsoAcrossARestart() throws IOException {
    new Conversation(CLAUDE, false).write(state);

    TranscriptEvent.Usage first = turn(new ClaudeStreamProjector(), "claude-answer.jsonl", true);
    TranscriptEvent.Usage second = turn(new ClaudeStreamProjector(), "claude-retried.jsonl", true);
    TranscriptEvent.Usage third =
        turn(new ClaudeStreamProjector(), "claude-tool-denied.jsonl", true);

    assertThat(first.costUsd()).hasValue(0.00014);
    assertThat(first.totalCostUsd()).hasValue(0.00014000000000000001);
    assertThat(second.costUsd()).hasValue(0.00014);
    assertThat(second.totalCostUsd()).hasValue(0.00028000000000000003);
    assertThat(third.costUsd()).hasValue(0.00014);
    assertThat(third.totalCostUsd()).hasValue(0.00042);
    // The tokens Claude Code reports are the turn's already, and stay as it reported them.
    assertThat(second.inputTokens()).hasValue(10);
    assertThat(second.totalInputTokens()).hasValue(20);
    assertThat(Conversation.read(state).totals().costUsd()).hasValue(0.00042);
  }

  @Test
  void eachCodexTurnHasTheTokensItAddedToTheThreadsRunningCount() throws IOException {
    Conversation.none().write(state);

    TranscriptEvent.Usage first = turn(new CodexStreamProjector(), "codex-answer.jsonl", true);
    // codex-resumed.jsonl is a later turn of another thread: its totals start the count afresh.
    Conversation kept = Conversation.read(state);
    assertThat(kept.id()).hasValue("01a2338c-e1e3-7f40-bac7-eefc20d9b1ce");
    new Conversation(
            kept.id(),
            true,
            new RunningTotals(OptionalLong.of(24), OptionalLong.of(12), OptionalDouble.empty()))
        .write(state);
    TranscriptEvent.Usage third = turn(new CodexStreamProjector(), "codex-resumed.jsonl", true);

    assertThat(first.inputTokens()).hasValue(12);
    assertThat(first.outputTokens()).hasValue(6);
    assertThat(first.totalInputTokens()).hasValue(12);
    assertThat(third.inputTokens()).hasValue(12);
    assertThat(third.outputTokens()).hasValue(6);
    assertThat(third.totalInputTokens()).hasValue(36);
    assertThat(third.costUsd()).isEmpty();
  }

  @Test
  void aTotalBelowTheKeptOneIsACountStartedAgainAndANewConversationStartsFromNothing() {
    Conversation kept =
        new Conversation(
            CLAUDE,
            true,
            new RunningTotals(OptionalLong.empty(), OptionalLong.empty(), OptionalDouble.of(5.0)));
    StreamProjector claude = new ClaudeStreamProjector();

    UsageLedger ledger = new UsageLedger(kept, claude);
    assertThat(ledger.perTurn(totals(0.25)).costUsd()).hasValue(0.25);

    UsageLedger fresh = new UsageLedger(new Conversation(Optional.of("other"), false), claude);
    assertThat(fresh.perTurn(totals(0.5)).costUsd()).hasValue(0.5);
    assertThat(fresh.keep(Conversation.none()).totals()).isEqualTo(RunningTotals.NONE);
  }

  @Test
  void aRunThatReportsNothingKeepsTheTotalsAsTheyWere() {
    RunningTotals totals =
        new RunningTotals(OptionalLong.of(3), OptionalLong.of(4), OptionalDouble.of(0.5));
    Conversation kept = new Conversation(CLAUDE, true, totals);

    UsageLedger ledger = new UsageLedger(kept, new ClaudeStreamProjector());

    assertThat(ledger.keep(new Conversation(CLAUDE, true)).totals()).isEqualTo(totals);
  }

  /**
   * One run of {@code fixture} through a ledger, its conversation read and kept as the runner does.
   */
  private TranscriptEvent.Usage turn(StreamProjector projector, String fixture, boolean succeeded)
      throws IOException {
    Conversation started = Conversation.read(state);
    UsageLedger ledger = new UsageLedger(started, projector);
    RecordingSink sink = ProjectorsOnRecordedStreamsTest.project(projector, fixture);
    TranscriptEvent.Usage usage =
        ledger.perTurn(sink.events(TranscriptEvent.Usage.class).getFirst());
    Conversation after =
        new Conversation(projector.announcedConversation().or(started::id), succeeded);
    ledger.keep(after).write(state);
    return usage;
  }

  private static TranscriptEvent.Usage totals(double cost) {
    return new TranscriptEvent.Usage(
        OptionalLong.empty(),
        OptionalLong.empty(),
        OptionalDouble.empty(),
        OptionalLong.empty(),
        OptionalLong.empty(),
        OptionalDouble.of(cost));
  }
}
