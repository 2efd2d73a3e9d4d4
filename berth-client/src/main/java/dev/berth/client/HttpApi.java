package dev.berth.client;

import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.channels.UnresolvedAddressException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import javax.net.ssl.SSLException;
import tools.jackson.databind.JsonNode;

/**
 * One authenticated HTTP exchange with {@code /api/v1}: builds the request, sends it with {@code
 * java.net.http}, and turns every failure into a {@link BerthClientException} whose message says
 * what happened (the problem document's reason and message, the status of a body that is not one,
 * or why the server could not be reached). Thread-safe: it holds only immutable state and the
 * thread-safe {@link HttpClient}.
 */
final class HttpApi {

  static final String PREFIX = "/api/v1";

  /** How much of an error body that is not a problem document goes into the message. */
  private static final int SNIPPET = 200;

  /** The most of an error body read from a stream's refused answer. */
  private static final int MAX_ERROR_BODY = 64 << 10;

  private final URI base;
  private final String token;
  private final HttpClient http;

  HttpApi(URI base, String token, HttpClient http) {
    this.base = base;
    this.token = token;
    this.http = http;
  }

  URI base() {
    return base;
  }

  HttpClient http() {
    return http;
  }

  String token() {
    return token;
  }

  /** A status and a body; {@code json} is absent for an empty body (204). */
  record Answer(int status, Optional<JsonNode> json) {}

  /**
   * Sends one request and returns any answer below 400.
   *
   * @param path below {@code /api/v1}, query included, already encoded
   * @param body serialized as JSON when present
   * @throws BerthApiException for an answer of 400 or more
   * @throws BerthUnreachableException when no answer came
   * @throws BerthProtocolException when a non-empty answer is not JSON
   */
  Answer call(
      String method,
      String path,
      Optional<?> body,
      Map<String, String> headers,
      Duration timeout,
      String what) {
    HttpRequest.Builder request = request(path).timeout(timeout);
    headers.forEach(request::header);
    if (body.isPresent()) {
      request
          .header("Content-Type", "application/json")
          .method(
              method,
              HttpRequest.BodyPublishers.ofByteArray(Json.mapper().writeValueAsBytes(body.get())));
    } else {
      request.method(method, HttpRequest.BodyPublishers.noBody());
    }
    HttpResponse<String> response =
        send(request.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    if (response.statusCode() >= 400) {
      throw refused(response.statusCode(), response.headers(), response.body(), what);
    }
    String text = response.body();
    return new Answer(
        response.statusCode(),
        text == null || text.isBlank() ? Optional.empty() : Optional.of(Json.parse(text, what)));
  }

  /**
   * Opens a server-sent-event stream; the caller reads and closes the body.
   *
   * @param lastEventId sent as {@code Last-Event-ID} when present (a reconnection)
   * @throws BerthApiException when the server refuses the stream
   * @throws BerthUnreachableException when no answer came
   * @throws BerthProtocolException when the answer is not {@code text/event-stream}
   */
  InputStream openStream(String path, Optional<Long> lastEventId, String what) {
    HttpRequest.Builder request = request(path).header("Accept", "text/event-stream").GET();
    lastEventId.ifPresent(id -> request.header("Last-Event-ID", Long.toString(id)));
    HttpResponse<InputStream> response =
        send(request.build(), HttpResponse.BodyHandlers.ofInputStream());
    InputStream body = response.body();
    if (response.statusCode() >= 400) {
      String text = readBounded(body);
      throw refused(response.statusCode(), response.headers(), text, what);
    }
    String type = response.headers().firstValue("Content-Type").orElse("");
    if (!type.startsWith("text/event-stream")) {
      closeQuietly(body);
      throw new BerthProtocolException(
          what
              + " answered "
              + response.statusCode()
              + " with Content-Type '"
              + type
              + "', not an event stream");
    }
    return body;
  }

  URI uri(String path) {
    return URI.create(base + PREFIX + path);
  }

  private HttpRequest.Builder request(String path) {
    return HttpRequest.newBuilder(uri(path)).header("Authorization", "Bearer " + token);
  }

  private <T> HttpResponse<T> send(HttpRequest request, HttpResponse.BodyHandler<T> handler) {
    try {
      return http.send(request, handler);
    } catch (IOException e) {
      throw unreachable(base, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new BerthUnreachableException(
          "interrupted while waiting for Berth at " + base + " to answer", e);
    }
  }

  /** The exception for a refused request: from its problem document when the body is one. */
  static BerthApiException refused(int status, HttpHeaders headers, String body, String what) {
    String text = body == null ? "" : body;
    Optional<Problem> problem = problemOf(text);
    if (problem.isPresent()) {
      Problem p = problem.get();
      return new BerthApiException(
          status,
          p.reason().filter(r -> !r.isBlank()).orElse("HTTP_" + status),
          p.message().orElse(what + " answered HTTP " + status),
          problem);
    }
    String snippet = text.strip().replaceAll("\\s+", " ");
    if (snippet.length() > SNIPPET) {
      snippet = snippet.substring(0, SNIPPET) + "…";
    }
    String type = headers.firstValue("Content-Type").orElse("no Content-Type");
    return new BerthApiException(
        status,
        "HTTP_" + status,
        what
            + " answered HTTP "
            + status
            + " ("
            + type
            + ")"
            + (snippet.isEmpty() ? "" : ": " + snippet),
        Optional.empty());
  }

  private static Optional<Problem> problemOf(String body) {
    if (!body.stripLeading().startsWith("{")) {
      return Optional.empty();
    }
    try {
      JsonNode tree = Json.mapper().readTree(body);
      if (!tree.isObject()) {
        return Optional.empty();
      }
      Problem problem = Json.read(tree, Problem.class, "problem");
      return problem.reason().isPresent() || problem.message().isPresent()
          ? Optional.of(problem)
          : Optional.empty();
    } catch (RuntimeException notAProblem) {
      return Optional.empty();
    }
  }

  /** {@code cannot reach Berth at <url>: <what happened>}. */
  static BerthUnreachableException unreachable(URI base, IOException e) {
    return new BerthUnreachableException("cannot reach Berth at " + base + ": " + describe(e), e);
  }

  private static String describe(IOException e) {
    if (e instanceof HttpConnectTimeoutException) {
      return "connection timed out";
    }
    if (e instanceof HttpTimeoutException) {
      return "no answer in time (" + e.getMessage() + ")";
    }
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof UnresolvedAddressException) {
        return "unknown host";
      }
      if (t instanceof SSLException) {
        return "TLS failed: " + t.getMessage();
      }
      if (t instanceof ConnectException && t.getMessage() != null) {
        return t.getMessage().toLowerCase(java.util.Locale.ROOT);
      }
    }
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t.getMessage() != null && !t.getMessage().isBlank()) {
        return t.getMessage();
      }
    }
    return e instanceof ConnectException
        ? "could not connect (is the server running and listening there?)"
        : e.getClass().getSimpleName();
  }

  private static String readBounded(InputStream body) {
    try (body) {
      return new String(body.readNBytes(MAX_ERROR_BODY), StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "";
    }
  }

  static void closeQuietly(InputStream body) {
    try {
      body.close();
    } catch (IOException ignored) {
      // Closing an abandoned stream; there is nobody to tell.
    }
  }

  static String query(String name, String value) {
    return name + "=" + URLEncoder.encode(value, StandardCharsets.UTF_8);
  }
}
