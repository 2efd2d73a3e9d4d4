package dev.berth.client;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * An incremental server-sent-events parser after the WHATWG "event stream interpretation": bytes go
 * in as they arrive, in chunks of any size, and complete events and comments come out. Lines end
 * with CRLF, LF or CR (a CR at the end of one chunk and an LF at the start of the next are one line
 * end); a blank line dispatches the event; {@code id} sets the last event id, which persists across
 * events; an event without data is not dispatched; a leading byte-order mark is skipped. Knows
 * nothing about Berth's events ({@link OutputEventDecoder} does) and nothing about the transport.
 *
 * <p>Not thread-safe: one parser per connection, fed by the thread that reads it.
 */
final class SseParser {

  /** A dispatched event: the last event id at dispatch, its type and its data. */
  record Event(String lastEventId, String type, String data) {}

  /** A comment line ({@code : keepalive}), without its colon and leading space. */
  record Comment(String text) {}

  private static final byte[] BOM = {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF};

  private final int maxLineBytes;
  private byte[] line = new byte[256];
  private int lineLength;
  private boolean afterCr;
  private int bomChecked;
  private final StringBuilder data = new StringBuilder();
  private boolean hasData;
  private String type = "";
  private String lastEventId = "";

  /**
   * @param maxLineBytes the longest line accepted; a longer one is a protocol error rather than
   *     unbounded memory
   */
  SseParser(int maxLineBytes) {
    this.maxLineBytes = maxLineBytes;
  }

  /**
   * Parses the next {@code length} bytes of the stream.
   *
   * @return the events (as {@link Event}) and comments (as {@link Comment}) those bytes completed,
   *     in stream order
   * @throws BerthProtocolException when a line is longer than the limit
   */
  List<Object> feed(byte[] bytes, int offset, int length) {
    List<Object> items = new ArrayList<>();
    for (int i = offset; i < offset + length; i++) {
      byte b = bytes[i];
      if (bomChecked < BOM.length) {
        if (b == BOM[bomChecked] && lineLength == bomChecked) {
          line = ensure(line, bomChecked + 1);
          line[lineLength++] = b;
          bomChecked++;
          if (bomChecked == BOM.length) {
            lineLength = 0;
          }
          continue;
        }
        bomChecked = BOM.length;
      }
      if (b == '\n' && afterCr) {
        afterCr = false;
        continue;
      }
      afterCr = b == '\r';
      if (b == '\n' || b == '\r') {
        endLine(items);
      } else {
        if (lineLength == maxLineBytes) {
          throw new BerthProtocolException(
              "an event-stream line is longer than " + maxLineBytes + " bytes");
        }
        line = ensure(line, lineLength + 1);
        line[lineLength++] = b;
      }
    }
    return items;
  }

  private void endLine(List<Object> items) {
    String text = new String(line, 0, lineLength, StandardCharsets.UTF_8);
    lineLength = 0;
    if (text.isEmpty()) {
      dispatch(items);
    } else if (text.charAt(0) == ':') {
      items.add(new Comment(text.substring(text.startsWith(": ") ? 2 : 1)));
    } else {
      int colon = text.indexOf(':');
      String field = colon < 0 ? text : text.substring(0, colon);
      String value = colon < 0 ? "" : text.substring(colon + 1);
      field(field, value.startsWith(" ") ? value.substring(1) : value);
    }
  }

  private void field(String field, String value) {
    switch (field) {
      case "event" -> type = value;
      case "data" -> {
        if (hasData) {
          data.append('\n');
        }
        data.append(value);
        hasData = true;
      }
      case "id" -> {
        if (value.indexOf('\0') < 0) {
          lastEventId = value;
        }
      }
      default -> {
        // "retry" and unknown fields: the client chooses its own reconnection delay.
      }
    }
  }

  private void dispatch(List<Object> items) {
    if (hasData) {
      items.add(new Event(lastEventId, type.isEmpty() ? "message" : type, data.toString()));
    }
    data.setLength(0);
    hasData = false;
    type = "";
  }

  private static byte[] ensure(byte[] buffer, int size) {
    return size <= buffer.length
        ? buffer
        : Arrays.copyOf(buffer, Math.max(size, buffer.length * 2));
  }
}
