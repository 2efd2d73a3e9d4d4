package dev.berth.agent.agentcli;

/**
 * One run's way into the byte log and the transcript: the answer and the standard error each
 * through their own redactor (either may be cut inside a secret) into the run's share of the log;
 * events redacted into the transcript, a usage completed by the run's {@link UsageLedger}, the
 * approval markers the session's proxy confirms as entries of their own ({@link ApprovalLedger}),
 * and the standard error's lines classified ({@link StderrLines}). The answer's reader and the
 * standard error's take turns.
 */
final class RunSink implements ProjectionSink {

  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(RunSink.class);

  private final String execution;
  private final TranscriptLog transcript;
  private final Redaction redaction;
  private final SessionOutput.Run output;
  private final UsageLedger usage;
  private final StreamRedactor answers;
  private final StreamRedactor errors;
  private final StreamRedactor transcriptAnswers;
  private final StderrLines stderr;
  private final ApprovalMarkers approvals = new ApprovalMarkers();
  private final ApprovalLedger ledger;

  RunSink(
      String execution,
      TranscriptLog transcript,
      Redaction redaction,
      SessionOutput.Run output,
      UsageLedger usage,
      ApprovalLedger ledger) {
    this.execution = execution;
    this.ledger = ledger;
    this.transcript = transcript;
    this.redaction = redaction;
    this.output = output;
    this.usage = usage;
    this.answers = redaction.stream();
    this.errors = redaction.stream();
    this.transcriptAnswers = redaction.stream();
    this.stderr = new StderrLines(redaction::text);
  }

  @Override
  public synchronized void text(String text) {
    output.write(answers.redact(text));
  }

  /**
   * A piece of the CLI's standard error: into the byte log as it is, and line by line into the
   * transcript.
   */
  synchronized void diagnostic(String text) {
    output.write(errors.redact(text));
    try {
      stderr.take(text).forEach(this::event);
    } catch (RuntimeException e) {
      // The byte log has it; a transcript that cannot be written fails the run on its answer's
      // side, not here, where it would stop the reader and leave the CLI blocked on a full pipe.
      LOG.warn("standard error of prompt {} not in its transcript: {}", execution, e.toString());
    }
  }

  /** The run ended: what the redactors held back, and the standard error's last entry. */
  synchronized void finish() {
    stderr.finish().forEach(this::event);
    output.write(answers.finish());
    output.write(errors.finish());
    String held = transcriptAnswers.finish();
    if (!held.isEmpty()) {
      transcript.append(execution, new TranscriptEvent.AssistantText(held));
    }
    approvals.take(held).forEach(this::approval);
    approvals.finish().forEach(this::approval);
  }

  /**
   * A marker line of the answer: an entry only when the session's proxy wrote it (the model can
   * write the same text), with what the proxy recorded, redacted as the rest.
   */
  private void approval(TranscriptEvent.Approval read) {
    ledger.admit(read).ifPresent(entry -> transcript.append(execution, redaction.event(entry)));
  }

  @Override
  public synchronized void event(TranscriptEvent event) {
    switch (event) {
      case TranscriptEvent.AssistantText text -> {
        // Deltas stream: a secret split across two of them is caught as in the byte log.
        String safe = transcriptAnswers.redact(text.text());
        if (!safe.isEmpty()) {
          transcript.append(execution, new TranscriptEvent.AssistantText(safe));
        }
        approvals.take(safe).forEach(this::approval);
      }
      case TranscriptEvent.Usage reported -> transcript.append(execution, usage.perTurn(reported));
      default -> transcript.append(execution, redaction.event(event));
    }
  }
}
