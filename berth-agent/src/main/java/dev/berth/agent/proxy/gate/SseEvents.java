package dev.berth.agent.proxy.gate;

import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * A server-sent event stream's text cut into whole events (a blank line ends each), each with its
 * JSON data parsed. An event longer than {@link #MAX_EVENT} is not held: its text comes out as it
 * arrives, as {@link Piece.Passed}, up to its blank line. Not thread-safe: one per answer.
 */
final class SseEvents {

  /** The most of one event held to parse it. */
  static final int MAX_EVENT = 8 << 20;

  static final JsonMapper JSON = JsonMapper.builder().build();

  /** What the stream's text is made of. */
  sealed interface Piece {
    /** A whole event: its text as it came, its type ({@code data.type} first) and its JSON. */
    record Event(String raw, String type, @Nullable ObjectNode data) implements Piece {}

    /** Text of an event too long to hold. */
    record Passed(String raw) implements Piece {}
  }

  private final StringBuilder pending = new StringBuilder();
  private int lineStart;
  private int scanned;
  private boolean passing;

  List<Piece> accept(String text) {
    pending.append(text);
    List<Piece> out = new ArrayList<>();
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
        String raw = pending.substring(0, next);
        out.add(passing ? new Piece.Passed(raw) : parse(raw));
        passing = false;
        pending.delete(0, next);
        i = 0;
        lineStart = 0;
      }
    }
    scanned = i;
    if (passing || pending.length() > MAX_EVENT) {
      passing = true;
      out.add(new Piece.Passed(pending.substring(0, scanned)));
      pending.delete(0, scanned);
      lineStart = lineStart == scanned ? 0 : -1;
      scanned = 0;
    }
    return out;
  }

  /** What is left of an unfinished event when the stream ends. */
  String rest() {
    String rest = pending.toString();
    pending.setLength(0);
    return rest;
  }

  static Piece.Event parse(String raw) {
    String type = "message";
    StringBuilder data = null;
    for (String line : raw.split("\r\n|\r|\n")) {
      int colon = line.indexOf(':');
      String field = colon < 0 ? line : line.substring(0, colon);
      String value = colon < 0 ? "" : line.substring(colon + 1);
      value = value.startsWith(" ") ? value.substring(1) : value;
      if (field.equals("data")) {
        data = data == null ? new StringBuilder(value) : data.append('\n').append(value);
      } else if (field.equals("event")) {
        type = value;
      }
    }
    ObjectNode json = data == null ? null : object(data.toString());
    if (json != null && json.path("type").isString()) {
      type = json.path("type").asString();
    }
    return new Piece.Event(raw, type, json);
  }

  static @Nullable ObjectNode object(String text) {
    try {
      JsonNode node = JSON.readTree(text);
      return node instanceof ObjectNode object ? object : null;
    } catch (JacksonException e) {
      return null;
    }
  }

  /** An event of the proxy's own making. */
  static String event(String type, JsonNode data) {
    return "event: " + type + "\ndata: " + JSON.writeValueAsString(data) + "\n\n";
  }
}
