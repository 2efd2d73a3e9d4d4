package dev.berth.agent.agentcli;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * One entry of a session's transcript, the same for every agent CLI. The wire name of each kind is
 * {@link #type()}; a kind is added, never renamed, so that old transcripts stay readable.
 */
public sealed interface TranscriptEvent {

  /** The wire name of this kind of event, e.g. {@code assistant-text}. */
  String type();

  /** A prompt's run began: the prompt as the user wrote it (after redaction). */
  record TurnStarted(String prompt, Optional<String> model) implements TranscriptEvent {
    public TurnStarted {
      Objects.requireNonNull(prompt, "prompt");
      Objects.requireNonNull(model, "model");
    }

    @Override
    public String type() {
      return "turn-started";
    }
  }

  /** A piece of the assistant's answer, in the order it streamed. */
  record AssistantText(String text) implements TranscriptEvent {
    @Override
    public String type() {
      return "assistant-text";
    }
  }

  /** The model's reasoning, summarised: its beginning, and how long it was in characters. */
  record Thinking(String summary, int length) implements TranscriptEvent {
    @Override
    public String type() {
      return "thinking";
    }
  }

  /** The model asked for a tool: its name and a short rendering of its input. */
  record ToolCall(String id, String name, String inputSummary) implements TranscriptEvent {
    @Override
    public String type() {
      return "tool-call";
    }
  }

  /** What a tool answered: whether it failed, and how large its result was in characters. */
  record ToolResult(String id, boolean error, long size) implements TranscriptEvent {
    @Override
    public String type() {
      return "tool-result";
    }
  }

  /** A tool the CLI's permission rules refused to run. */
  record PermissionDenied(String tool, String message) implements TranscriptEvent {
    @Override
    public String type() {
      return "permission-denied";
    }
  }

  /** An error the CLI reported (the run may still end); wire name {@code error}. */
  record Failure(String message) implements TranscriptEvent {
    @Override
    public String type() {
      return "error";
    }
  }

  /**
   * Something the CLI said that does not stop the turn: a line of its standard error that is not an
   * error, or a notice it labelled an error though the turn goes on (Codex's missing model
   * metadata, config warnings, deprecations).
   */
  record Warning(String message) implements TranscriptEvent {
    @Override
    public String type() {
      return "warning";
    }
  }

  /**
   * The CLI's call to the model failed and it tries again: its attempt (from 1), how many it makes
   * at most, how long it waits first, the HTTP status it got (none when no answer came) and what it
   * said of the failure.
   */
  record Retry(
      int attempt,
      OptionalInt maxAttempts,
      OptionalLong delayMs,
      OptionalInt status,
      String message)
      implements TranscriptEvent {
    public Retry {
      Objects.requireNonNull(maxAttempts, "maxAttempts");
      Objects.requireNonNull(delayMs, "delayMs");
      Objects.requireNonNull(status, "status");
      Objects.requireNonNull(message, "message");
    }

    @Override
    public String type() {
      return "retry";
    }

    /**
     * The line the byte log gets, so that a reader of the output sees why the answer waits: {@code
     * [model API error 502 (server_error); retry 1 of 10 in 0.6 s]}.
     */
    public String line() {
      StringBuilder line = new StringBuilder("[model API error");
      status.ifPresent(s -> line.append(' ').append(s));
      if (!message.isBlank()) {
        line.append(" (").append(message.strip()).append(')');
      }
      line.append("; retry ").append(attempt);
      maxAttempts.ifPresent(max -> line.append(" of ").append(max));
      delayMs.ifPresent(
          ms ->
              line.append(" in ")
                  .append(BigDecimal.valueOf(ms, 3).setScale(1, RoundingMode.HALF_UP))
                  .append(" s"));
      return line.append("]\n").toString();
    }
  }

  /**
   * What a turn used: its own token counts and cost ({@code inputTokens}, {@code outputTokens},
   * {@code costUsd}), and the conversation's running totals as the CLI reported them ({@code
   * totalInputTokens}, {@code totalOutputTokens}, {@code totalCostUsd}). A CLI reports some of
   * each; the runner derives a turn's own value from two running totals ({@link UsageLedger}).
   */
  record Usage(
      OptionalLong inputTokens,
      OptionalLong outputTokens,
      OptionalDouble costUsd,
      OptionalLong totalInputTokens,
      OptionalLong totalOutputTokens,
      OptionalDouble totalCostUsd)
      implements TranscriptEvent {
    public Usage {
      Objects.requireNonNull(inputTokens, "inputTokens");
      Objects.requireNonNull(outputTokens, "outputTokens");
      Objects.requireNonNull(costUsd, "costUsd");
      Objects.requireNonNull(totalInputTokens, "totalInputTokens");
      Objects.requireNonNull(totalOutputTokens, "totalOutputTokens");
      Objects.requireNonNull(totalCostUsd, "totalCostUsd");
    }

    @Override
    public String type() {
      return "usage";
    }
  }

  /**
   * A prompt's run ended: how ({@code succeeded}, {@code failed}, {@code cancelled}, {@code
   * timed-out}, or {@code lost} when its runtime stopped under it) and the CLI's exit status when
   * it exited.
   */
  record TurnFinished(String outcome, OptionalLong exitStatus) implements TranscriptEvent {
    @Override
    public String type() {
      return "turn-finished";
    }
  }

  /**
   * A tool call the session's approval gate held: {@code state} is {@code pending} when it began to
   * wait, then one of {@code approved}, {@code rejected}, {@code expired}, {@code timed_out},
   * {@code cancelled}, {@code error}, with the reason given. Read from the marker lines the
   * credential proxy writes into the answer ({@link ApprovalMarkers}), once the proxy confirms it
   * wrote them ({@link ApprovalLedger}).
   */
  record Approval(String approvalId, String tool, String state, Optional<String> reason)
      implements TranscriptEvent {
    public Approval {
      Objects.requireNonNull(approvalId, "approvalId");
      Objects.requireNonNull(tool, "tool");
      Objects.requireNonNull(state, "state");
      Objects.requireNonNull(reason, "reason");
    }

    @Override
    public String type() {
      return "approval";
    }
  }

  /** An event of the CLI's stream this version does not interpret: its JSON line as it came. */
  record Raw(String json) implements TranscriptEvent {
    @Override
    public String type() {
      return "raw";
    }
  }
}
