package dev.berth.server.api;

import io.javalin.http.Context;
import java.io.IOException;
import java.io.UncheckedIOException;

/** Reads a request body under the wire contract: 8 MiB at most, then strict JSON. */
final class Bodies {

  <T extends Record> T read(Context ctx, Class<T> type, boolean optional) {
    byte[] bytes;
    try {
      bytes = StrictJson.readLimited(ctx.req().getInputStream(), ctx.req().getContentLengthLong());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the request body", e);
    }
    return StrictJson.read(bytes, type, optional);
  }
}
