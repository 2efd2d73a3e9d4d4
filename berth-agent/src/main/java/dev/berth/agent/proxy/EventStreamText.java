package dev.berth.agent.proxy;

import java.util.ArrayList;
import java.util.List;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * A server-sent event stream's text, redacted event by event: it is cut into events (a blank line
 * ends each), each event's JSON data goes to the family's {@link Events}, and what they say is
 * written back as events: unchanged ones exactly as they came, changed ones with their other lines
 * kept and one {@code data:} line of the new JSON, released text as events of the proxy's own.
 *
 * <p>An event is held until its blank line, up to {@link #MAX_EVENT} characters; a longer one is
 * passed on as it comes, unparsed (the raw redaction behind this one still applies to it). A delta
 * is small; an event that long is a final event that repeats a whole answer. Not thread-safe: one
 * per answer.
 */
final class EventStreamText {

  /** The most of one event held to parse it. */
  static final int MAX_EVENT = 8 << 20;

  private static final JsonMapper JSON = JsonMapper.builder().build();

  private final Events events;
  private final StringBuilder pending = new StringBuilder();
  private int lineStart;
  private int scanned;
  private boolean passing;

  EventStreamText(Events events) {
    this.events = events;
  }

  /** What to send now, given {@code text} after what came before. */
  String accept(String text) {
    pending.append(text);
    StringBuilder out = new StringBuilder();
    int i = scanned;
    while (i < pending.length()) {
      char c = pending.charAt(i);
      if (c == '\r' && i + 1 == pending.length()) {
        break; // a CR at the end may be the first half of a CRLF
      }
      if (c != '\n' && c != '\r') {
        i++;
        continue;
      }
      int next = c == '\r' && pending.charAt(i + 1) == '\n' ? i + 2 : i + 1;
      boolean blank = i == lineStart;
      lineStart = next;
      i = next;
      if (blank) {
        out.append(dispatch(pending.substring(0, next)));
        pending.delete(0, next);
        i = 0;
        lineStart = 0;
      }
    }
    scanned = i;
    if (passing || pending.length() > MAX_EVENT) {
      // Too long to hold: what was scanned goes on as it came, up to the event's blank line.
      passing = true;
      out.append(pending, 0, scanned);
      pending.delete(0, scanned);
      lineStart = lineStart == scanned ? 0 : -1;
      scanned = 0;
    }
    return out.toString();
  }

  /** The end of the stream: held text released, then what is left of an unfinished event. */
  String finish() {
    StringBuilder out = new StringBuilder();
    for (Events.Outgoing outgoing : events.end()) {
      out.append(encode(outgoing, List.of(), 0));
    }
    out.append(pending);
    pending.setLength(0);
    return out.toString();
  }

  private String dispatch(String raw) {
    if (passing) {
      passing = false;
      return raw;
    }
    String type = "message";
    List<String> lines = new ArrayList<>();
    int dataAt = -1;
    StringBuilder data = null;
    for (String line : raw.split("\r\n|\r|\n")) {
      String field = line.indexOf(':') < 0 ? line : line.substring(0, line.indexOf(':'));
      String value = line.length() > field.length() ? line.substring(field.length() + 1) : "";
      value = value.startsWith(" ") ? value.substring(1) : value;
      if (field.equals("data")) {
        if (data == null) {
          data = new StringBuilder(value);
          dataAt = lines.size(); // where the one data line of a changed event goes
        } else {
          data.append('\n').append(value);
        }
        continue;
      }
      if (field.equals("event")) {
        type = value;
      }
      if (!line.isEmpty()) {
        lines.add(line);
      }
    }
    ObjectNode json = data == null ? null : parse(data.toString());
    if (json == null) {
      return raw;
    }
    StringBuilder out = new StringBuilder();
    for (Events.Outgoing outgoing : events.on(type, json)) {
      out.append(
          outgoing instanceof Events.Outgoing.Original ? raw : encode(outgoing, lines, dataAt));
    }
    return out.toString();
  }

  private static String encode(Events.Outgoing outgoing, List<String> lines, int dataAt) {
    return switch (outgoing) {
      case Events.Outgoing.Original original -> "";
      case Events.Outgoing.Made made ->
          "event: " + made.type() + "\ndata: " + JSON.writeValueAsString(made.data()) + "\n\n";
      case Events.Outgoing.Changed changed -> {
        List<String> out = new ArrayList<>(lines);
        out.add(dataAt, "data: " + JSON.writeValueAsString(changed.data()));
        yield String.join("\n", out) + "\n\n";
      }
    };
  }

  private static @org.jspecify.annotations.Nullable ObjectNode parse(String data) {
    try {
      JsonNode node = JSON.readTree(data);
      return node instanceof ObjectNode object ? object : null;
    } catch (JacksonException e) {
      return null; // not JSON: passed on as it came
    }
  }
}
