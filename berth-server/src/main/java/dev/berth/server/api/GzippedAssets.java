package dev.berth.server.api;

import io.javalin.http.Context;
import io.javalin.http.HandlerType;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The web UI's assets gzipped, for clients that accept gzip. The build writes {@code name.gz}
 * beside each text file it makes smaller (web/vite.config.ts); this answers {@code /assets/name}
 * with that copy before the static files would answer it as it is. Only these files are compressed:
 * the server's compression strategy stays NONE (BerthServer), so the API, SSE and WebSocket answers
 * go out exactly as written.
 */
final class GzippedAssets {

  static final String PREFIX = "/assets/";

  /** The build's file names only: no path separators, nothing that leaves the directory. */
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_-][A-Za-z0-9._-]*");

  private static final Map<String, String> TYPES =
      Map.of(
          "js", "text/javascript",
          "css", "text/css",
          "svg", "image/svg+xml");

  private final String directory;
  private final Map<String, String> headers;
  // Only copies found are kept (the jar's files bound it); a name without one is looked up again.
  private final Map<String, byte[]> found = new ConcurrentHashMap<>();

  /**
   * @param directory the classpath directory of the assets ({@code /web/assets})
   * @param headers what every asset answer carries (caching, nosniff)
   */
  GzippedAssets(String directory, Map<String, String> headers) {
    this.directory = directory;
    this.headers = headers;
  }

  /** A before-handler on {@code /assets/*}: answers the gzipped copy, or leaves the request be. */
  void handle(Context ctx) {
    if (!HandlerType.GET.equals(ctx.method()) || !acceptsGzip(ctx.header("Accept-Encoding"))) {
      return;
    }
    String name = ctx.path().substring(PREFIX.length());
    String type = TYPES.get(name.substring(name.lastIndexOf('.') + 1));
    if (type == null || !NAME.matcher(name).matches()) {
      return;
    }
    Optional<byte[]> packed = copyOf(name);
    if (packed.isEmpty()) {
      return;
    }
    headers.forEach(ctx::header);
    ctx.header("Content-Encoding", "gzip");
    ctx.header("Vary", "Accept-Encoding");
    ctx.contentType(type).result(packed.get());
    ctx.skipRemainingHandlers();
  }

  private Optional<byte[]> copyOf(String name) {
    byte[] known = found.get(name);
    if (known != null) {
      return Optional.of(known);
    }
    Optional<byte[]> read = read(directory + "/" + name + ".gz");
    read.ifPresent(bytes -> found.put(name, bytes));
    return read;
  }

  static Optional<byte[]> read(String resource) {
    try (InputStream in = GzippedAssets.class.getResourceAsStream(resource)) {
      return in == null ? Optional.empty() : Optional.of(in.readAllBytes());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the web UI's " + resource, e);
    }
  }

  /**
   * Whether an {@code Accept-Encoding} header takes gzip: named (or {@code *}) without {@code q=0}.
   * An explicit {@code gzip;q=0} refuses it whatever else the header says.
   */
  static boolean acceptsGzip(@Nullable String acceptEncoding) {
    if (acceptEncoding == null) {
      return false;
    }
    boolean any = false;
    for (String coding : acceptEncoding.split(",")) {
      String[] parts = coding.split(";");
      String name = parts[0].strip();
      if (name.equalsIgnoreCase("gzip")) {
        return !refused(parts);
      }
      any |= name.equals("*") && !refused(parts);
    }
    return any;
  }

  private static boolean refused(String[] parts) {
    for (int i = 1; i < parts.length; i++) {
      String parameter = parts[i].strip();
      if (parameter.startsWith("q=") && parameter.substring(2).matches("0(\\.0{0,3})?")) {
        return true;
      }
    }
    return false;
  }
}
