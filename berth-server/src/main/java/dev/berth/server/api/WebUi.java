package dev.berth.server.api;

import io.javalin.config.JavalinConfig;
import io.javalin.http.Context;
import io.javalin.http.staticfiles.Location;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The web UI: the single-page app built from {@code web/} into the jar's {@code /web} (see
 * bin/build-web). Its client routes ({@code /}, {@code /new}, {@code /session/:id}, {@code
 * /agent/:id}, {@code /restore/:id}, {@code /login}) answer {@code index.html}; {@code /assets/*}
 * are the build's content-hashed files, cached for a year. Neither is a Javalin route: the assets
 * are static files and the pages come from the single-page fallback, which runs only after no route
 * matched, so the API's routes (and the OpenAPI check of them) are untouched and an unknown {@code
 * /api/} path stays a problem+json 404.
 *
 * <p>The page carries a Content-Security-Policy: scripts only from this server and no inline
 * script; inline styles are allowed because the terminal (xterm.js) injects its own style sheet.
 *
 * <p>A client that accepts gzip gets the page gzipped (once, at start) and the assets from the
 * gzipped copies the build wrote beside them ({@link GzippedAssets}); every answer says {@code
 * Vary: Accept-Encoding}.
 */
public final class WebUi {

  static final String CSP =
      "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self'"
          + " data:; font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none';"
          + " form-action 'self'; frame-ancestors 'none'";

  private static final Pattern CLIENT_ROUTE =
      Pattern.compile("/|/new|/login|/(session|agent|restore)/[^/]+/?");

  private static final Map<String, String> ASSET_HEADERS =
      Map.of(
          "Cache-Control", "public, max-age=31536000, immutable",
          "X-Content-Type-Options", "nosniff");

  /** One encoding of the page, with the ETag that names it (each encoding has its own). */
  private static final class Page {
    private final byte[] bytes;
    private final String etag;

    Page(byte[] bytes, String etag) {
      this.bytes = bytes;
      this.etag = etag;
    }

    byte[] bytes() {
      return bytes;
    }

    String etag() {
      return etag;
    }
  }

  private final Optional<Page> index;
  private final Optional<Page> gzippedIndex;

  WebUi(Optional<byte[]> index) {
    this.index = index.map(page -> new Page(page, etagOf(page, "")));
    // Gzipped here, once, rather than read from a copy the build wrote: a stale copy left in an
    // unclean build directory would name assets that no longer exist.
    this.gzippedIndex = index.map(WebUi::gzip).map(page -> new Page(page, etagOf(page, "-gzip")));
  }

  private static byte[] gzip(byte[] page) {
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream(page.length / 2);
    try (java.util.zip.GZIPOutputStream zip = new java.util.zip.GZIPOutputStream(out)) {
      zip.write(page);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException("cannot gzip the web UI's index.html", e);
    }
    return out.toByteArray();
  }

  /** The UI the build put on the classpath; absent when the server was built without it. */
  static WebUi fromClasspath() {
    return new WebUi(GzippedAssets.read("/web/index.html"));
  }

  boolean available() {
    return index.isPresent();
  }

  void register(JavalinConfig config) {
    if (index.isPresent()) {
      // A before-handler, not a route: the API's routes (and the OpenAPI check of them) stay as
      // they are.
      config.routes.before(
          GzippedAssets.PREFIX + "*", new GzippedAssets("/web/assets", ASSET_HEADERS)::handle);
      config.staticFiles.add(
          files -> {
            files.hostedPath = "/assets";
            files.directory = "/web/assets";
            files.location = Location.CLASSPATH;
            files.headers = new java.util.HashMap<>(ASSET_HEADERS);
            files.headers.put("Vary", "Accept-Encoding");
          });
    }
    config.spaRoot.addHandler("/", this::fallback);
  }

  /**
   * Runs for a GET that no route or static file answered and whose client accepts HTML. A client
   * route gets the page; anything under {@code /api/} is left a 404 for the API's problem handler.
   */
  private void fallback(Context ctx) {
    String path = ctx.path();
    if (path.startsWith("/api/") || path.startsWith("/assets/")) {
      ctx.status(404);
      return;
    }
    if (index.isEmpty()) {
      ctx.status(404)
          .contentType("text/plain; charset=utf-8")
          .result(
              "This server was built without the web UI (web/ was not built); the API is at"
                  + " /api/v1.\n");
      return;
    }
    boolean known = CLIENT_ROUTE.matcher(path).matches();
    // An unknown page still gets the app, which says so, but with the status a crawler expects.
    index(ctx, known ? 200 : 404);
  }

  /** Answers the app's page with {@code status}, gzipped when the client accepts it. */
  void index(Context ctx, int status) {
    Optional<Page> gzipped =
        gzippedIndex.filter(g -> GzippedAssets.acceptsGzip(ctx.header("Accept-Encoding")));
    Page page = gzipped.or(() -> index).orElseThrow();
    ctx.header("Content-Security-Policy", CSP);
    ctx.header("X-Content-Type-Options", "nosniff");
    ctx.header("X-Frame-Options", "DENY");
    // The login URL carries a token; no page of the UI may leak its address to anyone.
    ctx.header("Referrer-Policy", "no-referrer");
    ctx.header("Cache-Control", "no-cache");
    ctx.header("Vary", "Accept-Encoding");
    ctx.header("ETag", page.etag());
    if (status == 200 && page.etag().equals(ctx.header("If-None-Match"))) {
      ctx.status(304);
      return;
    }
    gzipped.ifPresent(g -> ctx.header("Content-Encoding", "gzip"));
    ctx.status(status).contentType("text/html; charset=utf-8").result(page.bytes());
  }

  static boolean wantsHtml(Context ctx) {
    String accept = ctx.header("Accept");
    return accept != null && accept.contains("text/html");
  }

  private static String etagOf(byte[] page, String encoding) {
    return "\"" + dev.berth.core.digest.Sha256.hexPrefix(page, 12) + encoding + "\"";
  }
}
