package dev.berth.agent.http;

import dev.berth.agent.output.OutputLog;
import dev.berth.agent.output.OutputSlice;
import dev.berth.agent.output.SseOutputWriter;
import io.javalin.http.Context;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import tools.jackson.databind.json.JsonMapper;

/** Answers reads and streams of an output log: the session's, or one execution's. */
final class OutputResponses {

  /** The most one read returns; a client that wants more reads again from {@code nextOffset}. */
  static final int MAX_READ_BYTES = 8 << 20;

  private final JsonMapper json;
  private final AgentHttpServer.Settings settings;

  OutputResponses(JsonMapper json, AgentHttpServer.Settings settings) {
    this.json = json;
    this.settings = settings;
  }

  /** {@code GET …output?offset=N&limit=M}: non-consuming, any offset. */
  void read(Context ctx, OutputLog log) {
    long offset = Requests.cursor(ctx.queryParam("offset"), "offset");
    int limit = limit(ctx.queryParam("limit"));
    OutputSlice slice = log.read(offset, limit);
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("offset", slice.offset());
    body.put("payload", lenientUtf8(slice.bytes()));
    body.put("payloadBase64", Base64.getEncoder().encodeToString(slice.bytes()));
    body.put("nextOffset", slice.reset() ? slice.nextOffset() : slice.endOffset());
    body.put("startOffset", slice.startOffset());
    body.put("reset", slice.reset());
    ctx.contentType("application/json").result(json.writeValueAsString(body));
  }

  /**
   * {@code GET …stream}: the SSE contract. The cursor is parsed before any byte is written, so a
   * bad one is a plain 400; then the response is committed and streams until the client leaves or
   * the log closes. Written by hand rather than with Javalin's SSE helper, which answers only
   * clients that send {@code Accept: text/event-stream} (curl does not).
   */
  void stream(Context ctx, OutputLog log) throws IOException, InterruptedException {
    long cursor =
        SseOutputWriter.parseCursor(ctx.header("Last-Event-ID"), ctx.queryParam("offset"));
    ctx.status(200);
    ctx.header("Content-Type", "text/event-stream");
    ctx.header("Cache-Control", "no-cache, no-transform");
    ctx.header("X-Accel-Buffering", "no");
    ctx.header("X-Content-Type-Options", "nosniff");
    OutputStream out = ctx.res().getOutputStream();
    try {
      SseOutputWriter.stream(log, cursor, out, settings.keepalive(), settings.utf8HoldBack());
    } catch (IOException clientGone) {
      // The client left; there is nobody to answer.
    }
  }

  private static int limit(String value) {
    if (value == null || value.isEmpty()) {
      return MAX_READ_BYTES;
    }
    long limit = Requests.cursor(value, "limit");
    if (limit < 1 || limit > MAX_READ_BYTES) {
      throw new dev.berth.core.error.InvalidValueException(
          "limit must be between 1 and " + MAX_READ_BYTES + " bytes, was " + value);
    }
    return (int) limit;
  }

  /** The JSON {@code payload} is text; malformed bytes become U+FFFD (payloadBase64 is exact). */
  private static String lenientUtf8(byte[] bytes) {
    CharsetDecoder decoder =
        StandardCharsets.UTF_8
            .newDecoder()
            .onMalformedInput(CodingErrorAction.REPLACE)
            .onUnmappableCharacter(CodingErrorAction.REPLACE);
    try {
      return decoder.decode(java.nio.ByteBuffer.wrap(bytes)).toString();
    } catch (java.nio.charset.CharacterCodingException e) {
      throw new IllegalStateException("a replacing decoder cannot fail", e);
    }
  }
}
