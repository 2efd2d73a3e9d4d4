package dev.berth.agent.proxy;

import java.util.List;
import tools.jackson.databind.node.ObjectNode;

/**
 * How an API family's event stream carries text: which events are deltas of which content block,
 * and which end a block. Each event's JSON goes to {@link #on}, which says what to send instead.
 * Not thread-safe: one per answer.
 */
sealed interface Events permits AnthropicEvents, ResponsesEvents {

  /** What goes to the client for one event from the upstream. */
  sealed interface Outgoing {
    /** The event exactly as it came. */
    record Original() implements Outgoing {}

    /** The event with its data replaced. */
    record Changed(ObjectNode data) implements Outgoing {}

    /** An event of the proxy's own: held text released as a delta. */
    record Made(String type, ObjectNode data) implements Outgoing {}
  }

  /**
   * What to send for an event of type {@code type} with JSON {@code data} (which it may change):
   * deltas that release held text first, then the event (or nothing, when all of its text is held
   * back).
   */
  List<Outgoing> on(String type, ObjectNode data);

  /** The deltas that release what is still held when the stream ends. */
  List<Outgoing> end();

  /** The events of {@code api}'s streams, hiding {@code secrets}. */
  static Events of(ProviderProfile.Api api, List<String> secrets) {
    HeldTexts held = new HeldTexts(secrets);
    return switch (api) {
      case ANTHROPIC -> new AnthropicEvents(held);
      case OPENAI -> new ResponsesEvents(held);
    };
  }

  /** The event as it came when redacting its strings whole changed nothing, else the change. */
  static Outgoing whole(HeldTexts held, ObjectNode data) {
    return held.redactStrings(data) ? new Outgoing.Changed(data) : new Outgoing.Original();
  }

  /** A delta whose text became {@code safe}: as it came, changed, or nothing when all is held. */
  static List<Outgoing> delta(String piece, String safe, ObjectNode data, HeldTexts.Setter setter) {
    if (safe.equals(piece)) {
      return List.of(new Outgoing.Original());
    }
    if (safe.isEmpty()) {
      return List.of();
    }
    setter.accept(data, safe);
    return List.of(new Outgoing.Changed(data));
  }
}
