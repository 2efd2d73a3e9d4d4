package dev.berth.agent.agentcli;

/** Where a {@link StreamProjector} puts what it reads: text for the byte log, transcript events. */
public interface ProjectionSink {

  /** Text for the byte log, in order; the sink redacts and encodes it. */
  void text(String text);

  /** An entry for the transcript, in order; the sink redacts its strings. */
  void event(TranscriptEvent event);
}
