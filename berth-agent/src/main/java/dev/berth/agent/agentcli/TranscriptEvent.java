package dev.berth.agent.agentcli;

import java.util.Objects;
import java.util.Optional;
import java.util.OptionalDouble;
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

  /** Token counts of a turn, and its cost in US dollars when the CLI reports one. */
  record Usage(OptionalLong inputTokens, OptionalLong outputTokens, OptionalDouble costUsd)
      implements TranscriptEvent {
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

  /** An event of the CLI's stream this version does not interpret: its JSON line as it came. */
  record Raw(String json) implements TranscriptEvent {
    @Override
    public String type() {
      return "raw";
    }
  }
}
