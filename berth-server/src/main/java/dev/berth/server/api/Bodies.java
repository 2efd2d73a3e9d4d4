package dev.berth.server.api;

import io.javalin.http.Context;
import java.io.IOException;

/**
 * Reads a request body under the wire contract: 8 MiB at most, then strict JSON. A body that does
 * not arrive (slower than the read timeout, or cut short) is {@link UnreadableBodyException}.
 */
final class Bodies {

  <T extends Record> T read(Context ctx, Class<T> type, boolean optional) {
    byte[] bytes;
    try {
      bytes = StrictJson.readLimited(ctx.req().getInputStream(), ctx.req().getContentLengthLong());
    } catch (IOException e) {
      throw UnreadableBodyException.of(e);
    }
    return StrictJson.read(bytes, type, optional);
  }

  /**
   * The raw body of a request, at most {@code limit} bytes ({@link PayloadTooLargeException}
   * beyond), read under the same rules as a JSON body's.
   */
  static byte[] bytes(Context ctx, int limit) {
    if (ctx.req().getContentLengthLong() > limit) {
      throw new PayloadTooLargeException(limit);
    }
    try {
      byte[] bytes = ctx.req().getInputStream().readNBytes(limit + 1);
      if (bytes.length > limit) {
        throw new PayloadTooLargeException(limit);
      }
      return bytes;
    } catch (IOException e) {
      throw UnreadableBodyException.of(e);
    }
  }
}
