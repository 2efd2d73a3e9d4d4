package dev.berth.agent.proxy;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpsServer;
import dev.berth.agent.testing.LoopbackHttps;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Executors;

/**
 * An HTTPS upstream on loopback that answers every request with the one answer it was given, in the
 * chunks it was given (each written and flushed on its own), and records what it received: the
 * request headers with lower-case names, and the body.
 */
final class ScriptedProvider implements AutoCloseable {

  /** One request as the upstream received it. */
  record Received(Map<String, String> headers, byte[] body) {}

  private final HttpsServer server;
  private final Path caCertificate;
  private final List<Received> received = new ArrayList<>();
  private volatile String contentType = "text/event-stream";
  private volatile List<String> chunks = List.of();

  private ScriptedProvider(HttpsServer server, Path caCertificate) {
    this.server = server;
    this.caCertificate = caCertificate;
  }

  /** A provider whose certificate is made (by keytool) in {@code directory}. */
  static ScriptedProvider https(Path directory) throws Exception {
    LoopbackHttps https = LoopbackHttps.create(directory, "scripted");
    ScriptedProvider provider = new ScriptedProvider(https.server(), https.caCertificate());
    https.server().createContext("/", provider::handle);
    https.server().setExecutor(Executors.newVirtualThreadPerTaskExecutor());
    https.server().start();
    return provider;
  }

  /** Every request is answered 200 with {@code chunks}, of {@code type}. */
  void answers(String type, List<String> chunks) {
    this.contentType = type;
    this.chunks = List.copyOf(chunks);
  }

  URI url() {
    return URI.create("https://127.0.0.1:" + server.getAddress().getPort());
  }

  Path caCertificate() {
    return caCertificate;
  }

  synchronized List<Received> received() {
    return List.copyOf(received);
  }

  @Override
  public void close() {
    server.stop(0);
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      byte[] body = exchange.getRequestBody().readAllBytes();
      Map<String, String> headers = new TreeMap<>();
      exchange
          .getRequestHeaders()
          .forEach((k, v) -> headers.put(k.toLowerCase(Locale.ROOT), String.join(",", v)));
      synchronized (this) {
        received.add(new Received(headers, body));
      }
      exchange.getResponseHeaders().add("Content-Type", contentType);
      exchange.sendResponseHeaders(200, 0);
      OutputStream out = exchange.getResponseBody();
      for (String chunk : chunks) {
        out.write(chunk.getBytes(StandardCharsets.UTF_8));
        out.flush();
      }
    }
  }
}
