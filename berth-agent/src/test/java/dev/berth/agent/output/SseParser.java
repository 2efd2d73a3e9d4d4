package dev.berth.agent.output;

import java.util.ArrayList;
import java.util.List;

/**
 * A server-sent-events parser that follows the WHATWG "event stream interpretation" rules, and
 * additionally records comments so tests can see {@code : connected} and {@code : keepalive}.
 */
final class SseParser {

  sealed interface Item {}

  /** A dispatched event: the last event id at dispatch, its type and its data. */
  record Event(String id, String type, String data) implements Item {}

  /** A comment line, without its leading colon. */
  record Comment(String text) implements Item {}

  private final List<Item> items = new ArrayList<>();
  private final StringBuilder data = new StringBuilder();
  private String type = "";
  private String lastEventId = "";
  private boolean pendingFields;

  /** Parses a complete stream; fails when it ends inside an event. */
  static List<Item> parse(String stream) {
    SseParser parser = new SseParser();
    for (String line : lines(stream)) {
      parser.line(line);
    }
    if (parser.pendingFields) {
      throw new AssertionError("stream ends inside an event (no blank line after its fields)");
    }
    return parser.items;
  }

  /** Splits on CRLF, LF or CR; a trailing unterminated line is kept (and then flagged). */
  private static List<String> lines(String stream) {
    List<String> lines = new ArrayList<>();
    int start = 0;
    for (int i = 0; i < stream.length(); i++) {
      char c = stream.charAt(i);
      if (c == '\r' || c == '\n') {
        lines.add(stream.substring(start, i));
        if (c == '\r' && i + 1 < stream.length() && stream.charAt(i + 1) == '\n') {
          i++;
        }
        start = i + 1;
      }
    }
    if (start < stream.length()) {
      lines.add(stream.substring(start));
    }
    return lines;
  }

  private void line(String line) {
    if (line.isEmpty()) {
      dispatch();
    } else if (line.startsWith(":")) {
      items.add(new Comment(line.substring(1)));
    } else {
      int colon = line.indexOf(':');
      String field = colon < 0 ? line : line.substring(0, colon);
      String value = colon < 0 ? "" : line.substring(colon + 1);
      field(field, value.startsWith(" ") ? value.substring(1) : value);
      pendingFields = true;
    }
  }

  private void field(String field, String value) {
    switch (field) {
      case "event" -> type = value;
      case "data" -> data.append(value).append('\n');
      case "id" -> {
        if (value.indexOf('\0') < 0) {
          lastEventId = value;
        }
      }
      default -> {
        // "retry" and unknown fields do not matter here.
      }
    }
  }

  private void dispatch() {
    pendingFields = false;
    if (data.isEmpty()) {
      type = "";
      return;
    }
    String payload = data.substring(0, data.length() - 1);
    items.add(new Event(lastEventId, type.isEmpty() ? "message" : type, payload));
    data.setLength(0);
    type = "";
  }
}
