package dev.berth.agent.proxy;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.server.Request;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** A client's request as the upstream gets it: its target, allowlisted headers, token and body. */
final class UpstreamRequests {

  /** A request body over {@link CredentialProxy#BODY_CAP}, declared or read. */
  static final class TooLarge extends IOException {
    private static final long serialVersionUID = 1L;

    TooLarge() {
      super("request body exceeds 64 MiB");
    }
  }

  /**
   * How much of a chunked body is held in memory before the rest goes to a file: a session's proxy
   * serves 8 exchanges at once, and 8 bodies of 64 MiB in the node's heap would let one session run
   * the node, and every other session on it, out of memory.
   */
  static final int IN_MEMORY = 1 << 20;

  private static final Logger LOG = LoggerFactory.getLogger(UpstreamRequests.class);

  /**
   * Where one exchange's chunked body goes when it outgrows {@link #IN_MEMORY}: a file of the
   * node's own (created owner-only in the node's temporary directory, which the session never
   * sees), deleted when the exchange is over.
   */
  static final class Spool implements AutoCloseable {
    private @Nullable Path file;

    Path create() throws IOException {
      Path made = Files.createTempFile("berth-proxy-body-", ".part");
      file = made;
      return made;
    }

    @Override
    public void close() {
      Path made = file;
      if (made == null) {
        return;
      }
      try {
        Files.deleteIfExists(made);
      } catch (IOException e) {
        LOG.warn("cannot delete the spooled request body {}: {}", made, e.toString());
      }
    }
  }

  private UpstreamRequests() {}

  /**
   * The upstream request for {@code request}.
   *
   * @throws TooLarge when the body declares or reaches more than 64 MiB
   * @throws IOException when the client's body cannot be read
   */
  static HttpRequest of(
      ProviderProfile profile, Request request, String path, InputStream body, Spool spool)
      throws IOException {
    return of(profile, request, path, body(request, body, spool));
  }

  /** The upstream request for {@code request}, with a body already {@link #held}. */
  static HttpRequest of(ProviderProfile profile, Request request, String path, Held body)
      throws IOException {
    return of(profile, request, path, body.publisher());
  }

  private static HttpRequest of(
      ProviderProfile profile, Request request, String path, HttpRequest.BodyPublisher body) {
    String query = request.getHttpURI().getQuery();
    String base = profile.upstream().toString();
    if (base.endsWith("/")) {
      base = base.substring(0, base.length() - 1);
    }
    URI target = URI.create(base + path + (query == null ? "" : "?" + query));
    HttpRequest.Builder builder = HttpRequest.newBuilder(target).method(request.getMethod(), body);
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
   * the client declared is streamed with its length; one sent chunked is read first, up to the cap
   * (in memory up to {@link #IN_MEMORY}, the rest spooled to {@code spool}'s file), and sent with
   * the length it turned out to have.
   */
  private static HttpRequest.BodyPublisher body(Request request, InputStream body, Spool spool)
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
    if (declared == 0) {
      return HttpRequest.BodyPublishers.noBody();
    }
    return held(body, spool).publisher();
  }

  /**
   * A request body read whole before it goes anywhere: its first {@link #IN_MEMORY} bytes in
   * memory, the rest in {@link Spool}'s file. It can be read again ({@link #open}), which the gate
   * does to check it before it is sent.
   */
  static final class Held {
    private final byte[] head;
    private final @Nullable Path file;

    private Held(byte[] head, @Nullable Path file) {
      this.head = head;
      this.file = file;
    }

    InputStream open() throws IOException {
      InputStream memory = new java.io.ByteArrayInputStream(head);
      Path rest = file;
      return rest == null ? memory : Files.newInputStream(rest);
    }

    HttpRequest.BodyPublisher publisher() throws IOException {
      Path rest = file;
      if (rest != null) {
        return HttpRequest.BodyPublishers.ofFile(rest);
      }
      return head.length == 0
          ? HttpRequest.BodyPublishers.noBody()
          : HttpRequest.BodyPublishers.ofByteArray(head);
    }
  }

  /**
   * Reads {@code body} whole (it fails past the cap, as the caller's stream does): in memory up to
   * {@link #IN_MEMORY}, then the whole body in {@code spool}'s file.
   */
  static Held held(InputStream body, Spool spool) throws IOException {
    byte[] head = body.readNBytes(IN_MEMORY + 1);
    if (head.length <= IN_MEMORY) {
      return new Held(head, null);
    }
    Path file = spool.create();
    try (OutputStream out = Files.newOutputStream(file, StandardOpenOption.WRITE)) {
      out.write(head);
      body.transferTo(out);
    }
    return new Held(new byte[0], file);
  }
}
