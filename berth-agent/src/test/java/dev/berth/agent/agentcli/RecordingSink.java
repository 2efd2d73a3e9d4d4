package dev.berth.agent.agentcli;

import java.util.ArrayList;
import java.util.List;

/** A sink that keeps what a projector gave it, in order. */
final class RecordingSink implements ProjectionSink {
  final StringBuilder text = new StringBuilder();
  final List<TranscriptEvent> events = new ArrayList<>();

  @Override
  public synchronized void text(String piece) {
    text.append(piece);
  }

  @Override
  public synchronized void event(TranscriptEvent event) {
    events.add(event);
  }

  synchronized String text() {
    return text.toString();
  }

  synchronized <T extends TranscriptEvent> List<T> events(Class<T> kind) {
    return events.stream().filter(kind::isInstance).map(kind::cast).toList();
  }
}
