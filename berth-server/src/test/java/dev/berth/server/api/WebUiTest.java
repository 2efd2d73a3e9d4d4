package dev.berth.server.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.server.BerthServer;
import dev.berth.server.ServerConfig;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The server serves the web UI the build packed into the jar: the page for every client route, the
 * hashed assets with long caching, and leaves the API's own answers alone.
 */
class WebUiTest {

  private static final String TOKEN = "w".repeat(40);
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  @TempDir static Path dataDir;
  private static BerthServer server;

  @BeforeAll
  static void start() {
    server =
        new BerthServer(
                new ServerConfig("127.0.0.1", 0, dataDir).withAdminToken(Optional.of(TOKEN)))
            .start();
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  @Test
  void everyClientRouteAnswersThePageWithItsSecurityHeaders() throws Exception {
    for (String path :
        new String[] {"/", "/new", "/session/abc", "/agent/abc", "/restore/abc", "/login"}) {
      HttpResponse<String> page = get(path, "text/html,*/*;q=0.8", null);
      if (path.equals("/login")) {
        assertThat(page.statusCode()).as(path).isEqualTo(401);
      } else {
        assertThat(page.statusCode()).as(path).isEqualTo(200);
      }
      assertThat(page.headers().firstValue("Content-Type"))
          .get()
          .asString()
          .startsWith("text/html");
      assertThat(page.body()).contains("<div id=\"root\"></div>");
      assertThat(page.headers().firstValue("Content-Security-Policy"))
          .get()
          .asString()
          .contains("script-src 'self'")
          .doesNotContain("unsafe-eval");
      assertThat(page.headers().firstValue("Cache-Control")).hasValue("no-cache");
      assertThat(page.headers().firstValue("Referrer-Policy")).hasValue("no-referrer");
    }
  }

  @Test
  void thePageHasNoInlineScriptAndItsAssetsAreCachedForAYear() throws Exception {
    String page = get("/", "text/html", null).body();
    assertThat(page).doesNotContainPattern("<script(?![^>]*\\bsrc=)[^>]*>");
    Matcher script = Pattern.compile("src=\"(/assets/[^\"]+\\.js)\"").matcher(page);
    assertThat(script.find()).as("the page loads its script from /assets").isTrue();

    HttpResponse<String> asset = get(script.group(1), "*/*", null);

    assertThat(asset.statusCode()).isEqualTo(200);
    assertThat(asset.headers().firstValue("Content-Type")).get().asString().contains("javascript");
    assertThat(asset.headers().firstValue("Cache-Control"))
        .hasValue("public, max-age=31536000, immutable");
    assertThat(get("/assets/missing.js", "*/*", null).statusCode()).isEqualTo(404);
  }

  @Test
  void anAssetComesGzippedToAClientThatAcceptsGzipAndAsItIsToOneThatDoesNot() throws Exception {
    String script = scriptOf(get("/", "text/html", null).body());

    HttpResponse<byte[]> plain = getBytes(script, null);
    HttpResponse<byte[]> gzipped = getBytes(script, "gzip, deflate, br, zstd");
    HttpResponse<byte[]> refused = getBytes(script, "gzip;q=0, identity");

    assertThat(plain.headers().firstValue("Content-Encoding")).isEmpty();
    assertThat(refused.headers().firstValue("Content-Encoding")).isEmpty();
    assertThat(refused.body()).isEqualTo(plain.body());
    assertThat(gzipped.headers().firstValue("Content-Encoding")).hasValue("gzip");
    assertThat(gunzip(gzipped.body())).isEqualTo(plain.body());
    assertThat(gzipped.body().length).isLessThan(plain.body().length / 2);
    for (HttpResponse<byte[]> answer : List.of(plain, gzipped)) {
      assertThat(answer.statusCode()).isEqualTo(200);
      assertThat(answer.headers().firstValue("Vary")).hasValue("Accept-Encoding");
      assertThat(answer.headers().firstValue("Content-Type"))
          .get()
          .asString()
          .contains("javascript");
      assertThat(answer.headers().firstValue("Cache-Control"))
          .hasValue("public, max-age=31536000, immutable");
    }
  }

  @Test
  void thePageComesGzippedOnRequestWithItsOwnETagWhileTheApiNeverDoes() throws Exception {
    HttpResponse<byte[]> plain = getBytes("/", null);
    HttpResponse<byte[]> gzipped = getBytes("/", "gzip");
    HttpResponse<byte[]> api = getBytes("/api/v1/openapi.yaml", "gzip");

    assertThat(gzipped.headers().firstValue("Content-Encoding")).hasValue("gzip");
    assertThat(gunzip(gzipped.body())).isEqualTo(plain.body());
    assertThat(gzipped.headers().firstValue("ETag"))
        .isPresent()
        .isNotEqualTo(plain.headers().firstValue("ETag"));
    assertThat(gzipped.headers().firstValue("Vary")).hasValue("Accept-Encoding");
    assertThat(api.statusCode()).isEqualTo(200);
    assertThat(api.headers().firstValue("Content-Encoding")).isEmpty();
  }

  @Test
  void anUnknownApiPathStaysAProblemEvenForABrowser() throws Exception {
    HttpResponse<String> answer = get("/api/v1/nothing-here", "text/html", "Bearer " + TOKEN);

    assertThat(answer.statusCode()).isEqualTo(404);
    assertThat(answer.headers().firstValue("Content-Type")).hasValue(ApiProblems.CONTENT_TYPE);
    assertThat(answer.body()).contains("\"reason\":\"NOT_FOUND\"");
  }

  @Test
  void anUnknownPageIsTheAppWithA404() throws Exception {
    HttpResponse<String> answer = get("/no/such/page", "text/html", null);

    assertThat(answer.statusCode()).isEqualTo(404);
    assertThat(answer.body()).contains("<div id=\"root\"></div>");
  }

  @Test
  void aRefusedLoginShowsTheSignInPageToABrowserAndAProblemToAnyoneElse() throws Exception {
    HttpResponse<String> browser = get("/login?token=wrong", "text/html", null);
    HttpResponse<String> client = get("/login?token=wrong", "application/json", null);

    assertThat(browser.statusCode()).isEqualTo(401);
    assertThat(browser.body()).contains("<div id=\"root\"></div>");
    assertThat(browser.headers().firstValue("Set-Cookie")).isEmpty();
    assertThat(client.statusCode()).isEqualTo(401);
    assertThat(client.headers().firstValue("Content-Type")).hasValue(ApiProblems.CONTENT_TYPE);
  }

  @Test
  void aGoodLoginSetsTheCookieAndOpensTheConsole() throws Exception {
    HttpResponse<String> login = get("/login?token=" + TOKEN, "text/html", null);

    assertThat(login.statusCode()).isEqualTo(302);
    assertThat(login.headers().firstValue("Location")).hasValue("/");
    assertThat(login.headers().firstValue("Set-Cookie"))
        .get()
        .asString()
        .contains("berth_token=" + TOKEN)
        .contains("HttpOnly");
  }

  private static String scriptOf(String page) {
    Matcher script = Pattern.compile("src=\"(/assets/[^\"]+\\.js)\"").matcher(page);
    assertThat(script.find()).as("the page loads its script from /assets").isTrue();
    return script.group(1);
  }

  /** The answer as bytes (HttpClient never decodes a Content-Encoding itself). */
  private static HttpResponse<byte[]> getBytes(String path, String acceptEncoding)
      throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
            .header("Accept", "text/html,*/*;q=0.8");
    if (acceptEncoding != null) {
      request.header("Accept-Encoding", acceptEncoding);
    }
    return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
  }

  private static byte[] gunzip(byte[] gzipped) throws IOException {
    try (InputStream in = new GZIPInputStream(new ByteArrayInputStream(gzipped))) {
      return in.readAllBytes();
    }
  }

  private static HttpResponse<String> get(String path, String accept, String authorization)
      throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
            .header("Accept", accept);
    if (authorization != null) {
      request.header("Authorization", authorization);
    }
    return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }
}
