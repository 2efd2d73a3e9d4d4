package dev.berth.agent.agentcli;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;

/**
 * One run's usage, per turn and in total, whatever mix of the two its CLI reports: Claude Code
 * reports a turn's own tokens but the conversation's running cost ({@code total_cost_usd}) and
 * running tokens ({@code modelUsage}); Codex reports only running tokens ({@code turn.completed}).
 *
 * <p>The rule, for each of input tokens, output tokens and cost: the turn's own value is what the
 * CLI reported for the turn; failing that, its running total less the total it last reported for
 * the same conversation (kept with the {@link Conversation}); the whole total when there is none
 * (the conversation's first turn) or when the total went down (the CLI's count started again). A
 * cost so derived is rounded to 10 decimal places. A total is only ever what the CLI reported. A
 * run that reports nothing leaves the kept totals as they were.
 */
final class UsageLedger {

  private final Conversation started;
  private final StreamProjector projector;
  private RunningTotals totals;
  private boolean reported;

  /** The ledger of a run of {@code started}, whose stream {@code projector} reads. */
  UsageLedger(Conversation started, StreamProjector projector) {
    this.started = started;
    this.projector = projector;
    this.totals = started.totals();
  }

  /** The usage entry of what the CLI reported: every value it allows filled in. */
  synchronized TranscriptEvent.Usage perTurn(TranscriptEvent.Usage usage) {
    RunningTotals before = previous();
    TranscriptEvent.Usage turn =
        new TranscriptEvent.Usage(
            own(usage.inputTokens(), usage.totalInputTokens(), before.inputTokens()),
            own(usage.outputTokens(), usage.totalOutputTokens(), before.outputTokens()),
            own(usage.costUsd(), usage.totalCostUsd(), before.costUsd()),
            usage.totalInputTokens(),
            usage.totalOutputTokens(),
            usage.totalCostUsd());
    totals =
        new RunningTotals(
            or(usage.totalInputTokens(), before.inputTokens()),
            or(usage.totalOutputTokens(), before.outputTokens()),
            usage.totalCostUsd().isPresent() ? usage.totalCostUsd() : before.costUsd());
    reported = true;
    return turn;
  }

  /**
   * {@code after} (the adapter's conversation after the run) with the totals to keep: this run's
   * when it is this run's conversation, none when the next run starts another.
   */
  synchronized Conversation keep(Conversation after) {
    boolean same = after.id().isPresent() && after.id().equals(conversation());
    return after.withTotals(same ? previous() : RunningTotals.NONE);
  }

  /** The conversation this run is part of: the one the CLI announced, or the one it resumed. */
  private Optional<String> conversation() {
    return projector.announcedConversation().or(started::id);
  }

  /** What the CLI last reported for this run's conversation (none for a new one). */
  private RunningTotals previous() {
    if (reported) {
      return totals;
    }
    return started.id().isPresent() && started.id().equals(conversation())
        ? started.totals()
        : RunningTotals.NONE;
  }

  private static OptionalLong own(OptionalLong turn, OptionalLong total, OptionalLong before) {
    if (turn.isPresent() || total.isEmpty()) {
      return turn;
    }
    long now = total.getAsLong();
    long was = before.orElse(0);
    return OptionalLong.of(now >= was ? now - was : now);
  }

  private static OptionalDouble own(
      OptionalDouble turn, OptionalDouble total, OptionalDouble before) {
    if (turn.isPresent() || total.isEmpty()) {
      return turn;
    }
    // In decimal, to a tenth of a nano-dollar: the CLI sums binary fractions
    // (0.00028000000000000003
    // less 0.00014000000000000001 is a turn of 0.00014, not 1.4000000000000002E-4).
    BigDecimal now = BigDecimal.valueOf(total.getAsDouble());
    BigDecimal was = BigDecimal.valueOf(before.orElse(0));
    BigDecimal turnCost = now.compareTo(was) >= 0 ? now.subtract(was) : now;
    return OptionalDouble.of(turnCost.setScale(10, RoundingMode.HALF_UP).doubleValue());
  }

  private static OptionalLong or(OptionalLong value, OptionalLong otherwise) {
    return value.isPresent() ? value : otherwise;
  }
}
