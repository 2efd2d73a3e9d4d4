package dev.berth.agent.agentcli;

import java.util.List;

/** The session's secrets kept out of what a prompt's run leaves: its text, its events. */
record Redaction(List<String> secrets) {

  Redaction {
    secrets = List.copyOf(secrets);
  }

  /** A redactor for one stream (a secret may arrive split across its pieces). */
  StreamRedactor stream() {
    return new StreamRedactor(secrets);
  }

  /** {@code text}, whole, redacted. */
  String text(String text) {
    StreamRedactor redactor = stream();
    return redactor.redact(text) + redactor.finish();
  }

  /** {@code event} with every string a CLI or a prompt could have put a secret in redacted. */
  TranscriptEvent event(TranscriptEvent event) {
    return switch (event) {
      case TranscriptEvent.TurnStarted t ->
          new TranscriptEvent.TurnStarted(text(t.prompt()), t.model());
      case TranscriptEvent.AssistantText t -> new TranscriptEvent.AssistantText(text(t.text()));
      case TranscriptEvent.Thinking t ->
          new TranscriptEvent.Thinking(text(t.summary()), t.length());
      case TranscriptEvent.ToolCall t ->
          new TranscriptEvent.ToolCall(t.id(), t.name(), text(t.inputSummary()));
      case TranscriptEvent.PermissionDenied t ->
          new TranscriptEvent.PermissionDenied(t.tool(), text(t.message()));
      case TranscriptEvent.Failure t -> new TranscriptEvent.Failure(text(t.message()));
      case TranscriptEvent.Warning t -> new TranscriptEvent.Warning(text(t.message()));
      case TranscriptEvent.Retry t ->
          new TranscriptEvent.Retry(
              t.attempt(), t.maxAttempts(), t.delayMs(), t.status(), text(t.message()));
      case TranscriptEvent.Raw t -> new TranscriptEvent.Raw(text(t.json()));
      case TranscriptEvent.Approval t ->
          new TranscriptEvent.Approval(
              t.approvalId(), text(t.tool()), t.state(), t.reason().map(this::text));
      case TranscriptEvent.ToolResult t -> t;
      case TranscriptEvent.Usage t -> t;
      case TranscriptEvent.TurnFinished t -> t;
    };
  }
}
