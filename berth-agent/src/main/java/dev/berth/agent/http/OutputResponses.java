package dev.berth.agent.http;

import dev.berth.agent.output.OutputLog;
import dev.berth.agent.output.OutputRange;
import dev.berth.agent.output.SseOutputWriter;
import dev.berth.protocol.wire.WireLimits;
import io.javalin.http.Context;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.concurrent.TimeoutException;
import org.eclipse.jetty.ee10.servlet.ServletContextRequest;
import org.eclipse.jetty.io.EndPoint;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;

/**
 * Answers reads and streams of an output log: the session's, or one execution's. Both are written
 * to the socket as they are read from the log, under the {@link StallWatch}: the host never holds
 * more of an answer than a few small buffers, however large the log and however slow the client.
 */
final class OutputResponses {

  /**
   * The most payload bytes one read returns (1 MiB): a client that asks for more, or for
   * everything, gets a short read and reads again from {@code nextOffset}. It bounds how long one
   * read holds its log files and its thread, and keeps one answer (about 2.4 MiB of JSON at worst
   * for text, more for bytes that are not UTF-8) a size any client can take in one piece.
   */
  static final int MAX_READ_BYTES = WireLimits.MAX_READ_BYTES;

  private static final org.slf4j.Logger LOG =
      org.slf4j.LoggerFactory.getLogger(OutputResponses.class);

  private final JsonMapper json;
  private final AgentHttpServer.Settings settings;
  private final StallWatch stalls;

  OutputResponses(JsonMapper json, AgentHttpServer.Settings settings, StallWatch stalls) {
    this.json = json;
    this.settings = settings;
    this.stalls = stalls;
  }

  /**
   * {@code GET …output?offset=N&limit=M}: non-consuming, any offset, at most {@link
   * #MAX_READ_BYTES}. The range is opened before any byte is written, so a bad cursor or a missing
   * log is still a problem answer; after that the answer is committed and streamed.
   */
  void read(Context ctx, OutputLog log) throws IOException {
    long offset = Requests.cursor(ctx.queryParam("offset"), "offset");
    int limit = limit(ctx.queryParam("limit"));
    try (OutputRange range = log.openRange(offset, limit)) {
      ctx.status(200);
      ctx.contentType("application/json");
      OutputStream out = guarded(ctx, "read " + ctx.path());
      try {
        OutputReadJson.write(json, range, out);
      } catch (JacksonException | UncheckedIOException clientGoneOrLogUnreadable) {
        // The answer is committed: the only honest way to fail it now is to cut the connection.
        LOG.debug("read {} broke off: {}", ctx.path(), clientGoneOrLogUnreadable.toString());
        endPoint(ctx).close(clientGoneOrLogUnreadable);
      }
    }
  }

  /**
   * {@code GET …stream}: the SSE contract. The cursor is parsed before any byte is written, so a
   * bad one is a plain 400; then the response is committed and streams until the client leaves,
   * stalls, or the log closes. Written by hand rather than with Javalin's SSE helper, which answers
   * only clients that send {@code Accept: text/event-stream} (curl does not).
   */
  void stream(Context ctx, OutputLog log) throws IOException, InterruptedException {
    long cursor =
        SseOutputWriter.parseCursor(ctx.header("Last-Event-ID"), ctx.queryParam("offset"));
    ctx.status(200);
    ctx.header("Content-Type", "text/event-stream");
    ctx.header("Cache-Control", "no-cache, no-transform");
    ctx.header("X-Accel-Buffering", "no");
    ctx.header("X-Content-Type-Options", "nosniff");
    OutputStream out = guarded(ctx, "stream " + ctx.path());
    try {
      SseOutputWriter.stream(log, cursor, out, settings.keepalive(), settings.utf8HoldBack());
    } catch (IOException clientGoneOrStalled) {
      // The client left, or was dropped for not reading; there is nobody to answer.
    }
  }

  /** The response stream, which drops the connection when one write stalls past the timeout. */
  OutputStream guarded(Context ctx, String subject) throws IOException {
    EndPoint endPoint = endPoint(ctx);
    return stalls.guard(
        ctx.res().getOutputStream(),
        subject,
        () ->
            endPoint.close(
                new TimeoutException("the client took no output for " + stalls.timeout())));
  }

  private static EndPoint endPoint(Context ctx) {
    return ServletContextRequest.getServletContextRequest(ctx.req())
        .getConnectionMetaData()
        .getConnection()
        .getEndPoint();
  }

  /** {@code limit}: absent means the cap; above the cap is a short read, not an error. */
  private static int limit(String value) {
    if (value == null || value.isEmpty()) {
      return MAX_READ_BYTES;
    }
    long limit = Requests.cursor(value, "limit");
    if (limit < 1) {
      throw new dev.berth.core.error.InvalidValueException(
          "limit must be at least 1 byte, was "
              + value
              + "; leave it out to read up to "
              + MAX_READ_BYTES
              + " bytes");
    }
    return (int) Math.min(limit, MAX_READ_BYTES);
  }
}
