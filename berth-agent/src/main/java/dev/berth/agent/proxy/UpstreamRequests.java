package dev.berth.agent.proxy;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpRequest;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.server.Request;

/** A client's request as the upstream gets it: its target, allowlisted headers, token and body. */
final class UpstreamRequests {

  /** A request body over {@link CredentialProxy#BODY_CAP}, declared or read. */
  static final class TooLarge extends IOException {
    private static final long serialVersionUID = 1L;

    TooLarge() {
      super("request body exceeds 64 MiB");
    }
  }

  private UpstreamRequests() {}

  /**
   * The upstream request for {@code request}.
   *
   * @throws TooLarge when the body declares or reaches more than 64 MiB
   * @throws IOException when the client's body cannot be read
   */
  static HttpRequest of(ProviderProfile profile, Request request, String path, InputStream body)
      throws IOException {
    String query = request.getHttpURI().getQuery();
    String base = profile.upstream().toString();
    if (base.endsWith("/")) {
      base = base.substring(0, base.length() - 1);
    }
    URI target = URI.create(base + path + (query == null ? "" : "?" + query));
    HttpRequest.Builder builder =
        HttpRequest.newBuilder(target).method(request.getMethod(), body(request, body));
    for (HttpField field : request.getHeaders()) {
      if (profile.api().allows(field.getName())) {
        builder.header(field.getName(), field.getValue());
      }
    }
    builder.setHeader(profile.authHeader().name(), profile.authHeader().value(profile.token()));
    builder.setHeader("Accept-Encoding", "identity");
    return builder.build();
  }

  /**
   * The body, always with a {@code Content-Length} (some providers refuse a chunked request): one
   * the client declared is streamed with its length; one sent chunked is read first, up to the cap,
   * and sent with the length it turned out to have.
   */
  private static HttpRequest.BodyPublisher body(Request request, InputStream body)
      throws IOException {
    String method = request.getMethod();
    if (method.equals("GET") || method.equals("HEAD")) {
      return HttpRequest.BodyPublishers.noBody();
    }
    long declared = request.getLength();
    if (declared > CredentialProxy.BODY_CAP) {
      throw new TooLarge();
    }
    if (declared > 0) {
      return HttpRequest.BodyPublishers.fromPublisher(
          HttpRequest.BodyPublishers.ofInputStream(() -> body), declared);
    }
    byte[] whole = declared == 0 ? new byte[0] : body.readAllBytes();
    return whole.length == 0
        ? HttpRequest.BodyPublishers.noBody()
        : HttpRequest.BodyPublishers.ofByteArray(whole);
  }
}
