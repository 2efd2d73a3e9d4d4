package dev.berth.agent.output;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.regex.Pattern;

/**
 * Writes an output log as the server-sent-event stream of the agent protocol ("The output stream
 * (SSE)" in {@code docs/agent-protocol.md}), byte for byte as the original platform did:
 *
 * <pre>
 * : connected
 *
 * id: &lt;nextOffset&gt;
 * event: output
 * data: {"offset":&lt;start&gt;,"payloadBase64":"&lt;std base64&gt;","nextOffset":&lt;end&gt;}
 *
 * id: &lt;len&gt;
 * event: reset
 * data: {"nextOffset":&lt;len&gt;}
 *
 * : keepalive
 * </pre>
 *
 * <p>Each output event carries at most {@value #MAX_EVENT_BYTES} decoded bytes, events are
 * contiguous and each is flushed on its own. The caller sets the HTTP headers.
 */
public final class SseOutputWriter {
  /** The most decoded bytes one output event carries. */
  public static final int MAX_EVENT_BYTES = 65_536;

  private static final byte[] CONNECTED = ascii(": connected\n\n");
  private static final byte[] KEEPALIVE = ascii(": keepalive\n\n");
  private static final Pattern DECIMAL = Pattern.compile("[0-9]+");
  private static final Pattern NEGATIVE_DECIMAL = Pattern.compile("-[0-9]+");

  private SseOutputWriter() {}

  /**
   * Streams {@code log} from {@code cursor} to {@code out} until the log is closed and everything
   * in it was sent. A keepalive comment goes out whenever nothing else did for {@code keepalive}.
   *
   * @param holdBack how long a trailing incomplete UTF-8 sequence waits for its completion
   * @throws IOException when writing fails, typically because the client went away
   * @throws InterruptedException when the serving thread is interrupted while waiting
   */
  public static void stream(
      OutputLog log, long cursor, OutputStream out, Duration keepalive, Duration holdBack)
      throws IOException, InterruptedException {
    send(out, CONNECTED);
    OutputFollower follower = new OutputFollower(log, cursor, MAX_EVENT_BYTES, holdBack);
    while (true) {
      switch (follower.next(keepalive)) {
        case FollowEvent.Chunk chunk -> send(out, outputEvent(chunk));
        case FollowEvent.Reset reset -> send(out, resetEvent(reset.nextOffset()));
        case FollowEvent.Idle idle -> send(out, KEEPALIVE);
        case FollowEvent.Closed closed -> {
          return;
        }
      }
    }
  }

  static byte[] outputEvent(FollowEvent.Chunk chunk) {
    return ascii(
        "id: "
            + chunk.nextOffset()
            + "\nevent: output\ndata: {\"offset\":"
            + chunk.offset()
            + ",\"payloadBase64\":\""
            + Base64.getEncoder().encodeToString(chunk.bytes())
            + "\",\"nextOffset\":"
            + chunk.nextOffset()
            + "}\n\n");
  }

  static byte[] resetEvent(long nextOffset) {
    return ascii(
        "id: " + nextOffset + "\nevent: reset\ndata: {\"nextOffset\":" + nextOffset + "}\n\n");
  }

  private static void send(OutputStream out, byte[] frame) throws IOException {
    out.write(frame);
    out.flush();
  }

  private static byte[] ascii(String text) {
    return text.getBytes(StandardCharsets.US_ASCII);
  }

  /**
   * The cursor a stream starts from: a non-empty {@code Last-Event-ID} header wins over the {@code
   * offset} query parameter, and with neither (null or empty) it is 0.
   *
   * @throws IllegalArgumentException when the chosen value is negative or not a decimal integer
   *     that fits a long; the message names the source and the value (the HTTP layer answers 400)
   */
  public static long parseCursor(String lastEventId, String offsetQuery) {
    if (lastEventId != null && !lastEventId.isEmpty()) {
      return parse("Last-Event-ID", lastEventId);
    }
    if (offsetQuery == null || offsetQuery.isEmpty()) {
      return 0;
    }
    return parse("offset", offsetQuery);
  }

  private static long parse(String source, String value) {
    if (DECIMAL.matcher(value).matches()) {
      try {
        return Long.parseLong(value);
      } catch (NumberFormatException tooLarge) {
        throw badCursor(source, value, "is larger than any byte offset");
      }
    }
    if (NEGATIVE_DECIMAL.matcher(value).matches()) {
      throw badCursor(source, value, "is negative");
    }
    throw badCursor(source, value, "is not a decimal integer");
  }

  private static IllegalArgumentException badCursor(String source, String value, String problem) {
    return new IllegalArgumentException(
        source
            + " must be a byte offset >= 0, but \""
            + value
            + "\" "
            + problem
            + "; resume from a nextOffset the stream sent, or from 0 to replay everything");
  }
}
