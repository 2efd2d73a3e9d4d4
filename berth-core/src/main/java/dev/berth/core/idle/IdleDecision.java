package dev.berth.core.idle;

import java.time.Instant;

/** What the idle policy decided about a session, and why: the answer of {@code GET …/idle}. */
public sealed interface IdleDecision {

  /** The policy does not apply: the session is not running (or not asked to run). */
  record NotApplicable(String why) implements IdleDecision {}

  /** Accessed recently; it becomes idle at {@code idleAt} and is suspended at {@code suspendAt}. */
  record Active(Instant idleAt, Instant suspendAt) implements IdleDecision {}

  /** Idle (still holding its runtime) since {@code since}; suspended at {@code suspendAt}. */
  record Idle(Instant since, Instant suspendAt) implements IdleDecision {}

  /** Due for suspension, but {@code hold} keeps it until {@code until} at the latest. */
  record Held(Hold hold, Instant until) implements IdleDecision {}

  /** Suspend now: no access for {@code suspendAfter} and nothing holds it. */
  record Suspend(Instant idleSince) implements IdleDecision {}

  /** What can hold a session that is due for suspension. */
  enum Hold {
    KEEP_ALIVE,
    EXECUTION_RUNNING,
    SHELL_BUSY,
    /** A tool call of the session's agent waits for a decision (until the approval expires). */
    APPROVAL_PENDING
  }
}
