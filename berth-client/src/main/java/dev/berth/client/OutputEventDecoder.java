package dev.berth.client;

import java.util.Base64;
import java.util.Optional;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;

/**
 * Turns SSE events into {@link OutputEvent}s and enforces the contract's client checks: an {@code
 * output} event's id is its {@code nextOffset}, its payload is standard base64 and decodes to
 * exactly {@code nextOffset - offset} bytes; a {@code reset} event's id is its {@code nextOffset}.
 * Events of other types are ignored, so that a server may add some.
 */
final class OutputEventDecoder {

  private OutputEventDecoder() {}

  /**
   * @return the decoded event, or empty for an event type this client does not know
   * @throws BerthProtocolException when an {@code output} or {@code reset} event breaks the
   *     contract; the message says which rule and quotes the values
   */
  static Optional<OutputEvent> decode(SseParser.Event event) {
    return switch (event.type()) {
      case "output" -> Optional.of(output(event));
      case "reset" -> Optional.of(reset(event));
      default -> Optional.empty();
    };
  }

  private static OutputEvent.Chunk output(SseParser.Event event) {
    JsonNode data = data(event);
    long offset = offset(data, "offset", event);
    long nextOffset = offset(data, "nextOffset", event);
    checkId(event, nextOffset);
    JsonNode payload = data.get("payloadBase64");
    if (payload == null || !payload.isString()) {
      throw broken(event, "has no payloadBase64 string");
    }
    byte[] bytes;
    try {
      bytes = Base64.getDecoder().decode(payload.asString());
    } catch (IllegalArgumentException e) {
      throw broken(event, "has a payloadBase64 that is not standard base64: " + e.getMessage());
    }
    if (nextOffset < offset || bytes.length != nextOffset - offset) {
      throw broken(
          event,
          "carries "
              + bytes.length
              + " bytes but spans offsets "
              + offset
              + ".."
              + nextOffset
              + " ("
              + (nextOffset - offset)
              + " bytes)");
    }
    return new OutputEvent.Chunk(offset, bytes, nextOffset);
  }

  private static OutputEvent.Reset reset(SseParser.Event event) {
    long nextOffset = offset(data(event), "nextOffset", event);
    checkId(event, nextOffset);
    return new OutputEvent.Reset(nextOffset);
  }

  private static JsonNode data(SseParser.Event event) {
    try {
      JsonNode data = Json.mapper().readTree(event.data());
      if (data == null || !data.isObject()) {
        throw broken(event, "has data that is not a JSON object");
      }
      return data;
    } catch (JacksonException e) {
      throw broken(event, "has data that is not JSON: " + e.getOriginalMessage());
    }
  }

  private static long offset(JsonNode data, String field, SseParser.Event event) {
    JsonNode value = data.get(field);
    if (value == null || !value.isIntegralNumber() || !value.canConvertToLong()) {
      throw broken(event, "has no integer " + field);
    }
    long n = value.asLong();
    if (n < 0) {
      throw broken(event, "has a negative " + field + " (" + n + ")");
    }
    return n;
  }

  private static void checkId(SseParser.Event event, long nextOffset) {
    if (!event.lastEventId().equals(Long.toString(nextOffset))) {
      throw broken(
          event,
          "has id '"
              + event.lastEventId()
              + "' but nextOffset "
              + nextOffset
              + "; the contract makes them equal");
    }
  }

  private static BerthProtocolException broken(SseParser.Event event, String problem) {
    return new BerthProtocolException("an output-stream '" + event.type() + "' event " + problem);
  }
}
