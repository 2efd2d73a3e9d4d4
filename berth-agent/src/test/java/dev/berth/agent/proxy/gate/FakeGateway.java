package dev.berth.agent.proxy.gate;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * An approval gateway on loopback speaking the gateway protocol (the proxy's other side, as the
 * control plane serves it at {@code /gateway}): {@code POST /gateway/api/requests} creates a
 * request (201; 200 for the same id and digest again; 409 for another digest), {@code GET
 * /gateway/api/requests/{id}} answers its status; both want the key in {@code x-api-key} (401
 * without it). A new request's status is what {@link #decidesNext} scripted ({@code PENDING} until
 * the test calls {@link #decide}, by default); {@code DELETE /gateway/api/requests/{id}} withdraws
 * a pending one (CANCELLED) and answers its status. It records every request; {@link #failsWith}
 * makes it answer every request with an error status.
 */
public final class FakeGateway implements AutoCloseable {

  /** One request as the gateway received it. */
  public record Received(String method, String path, @Nullable String apiKey, String body) {}

  /** A created request: what the proxy sent, and its status now. */
  public record Pending(
      String id, String tool, String digest, JsonNode arguments, String status, String reason) {}

  private static final JsonMapper JSON = JsonMapper.builder().build();

  private final HttpServer server;
  private final String key;
  private final List<Received> received = new ArrayList<>();
  private final Map<String, Pending> requests = new LinkedHashMap<>();
  private String nextStatus = "PENDING";
  private String nextReason = "";
  private int failure;
  private String landsBeforeWithdraw = "";

  private FakeGateway(HttpServer server, String key) {
    this.server = server;
    this.key = key;
  }

  /** A gateway that accepts {@code key}. */
  public static FakeGateway start(String key) throws IOException {
    HttpServer server =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    FakeGateway gateway = new FakeGateway(server, key);
    server.createContext("/", gateway::handle);
    server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
    server.start();
    return gateway;
  }

  /** The gateway's base URL as a proxy is given it, {@code http://127.0.0.1:<port>/gateway}. */
  public URI url() {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/gateway");
  }

  /** New requests get {@code status} ({@code APPROVED}, {@code REJECTED}, …) at once. */
  public synchronized void decidesNext(String status, String reason) {
    nextStatus = status;
    nextReason = reason;
  }

  /** Request {@code id} is decided: {@code status}, with {@code reason} (may be empty). */
  public synchronized void decide(String id, String status, String reason) {
    Pending pending = requests.get(id);
    if (pending == null) {
      throw new IllegalArgumentException("no request " + id + "; there are " + requests.keySet());
    }
    requests.put(
        id, new Pending(id, pending.tool(), pending.digest(), pending.arguments(), status, reason));
  }

  /** Every request is answered {@code status} (0: answered as usual again). */
  public synchronized void failsWith(int status) {
    failure = status;
  }

  public synchronized List<Received> received() {
    return List.copyOf(received);
  }

  /** The requests created, oldest first. */
  public synchronized List<Pending> requests() {
    return List.copyOf(requests.values());
  }

  public synchronized Optional<Pending> request(String id) {
    return Optional.ofNullable(requests.get(id));
  }

  @Override
  public void close() {
    server.stop(0);
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
      String path = exchange.getRequestURI().getPath();
      String given = exchange.getRequestHeaders().getFirst("x-api-key");
      int status;
      String answer;
      synchronized (this) {
        received.add(new Received(exchange.getRequestMethod(), path, given, body));
        if (failure != 0) {
          status = failure;
          answer = "{\"error\":\"scripted failure\"}";
        } else if (!key.equals(given)) {
          status = 401;
          answer = "{\"error\":\"unauthorized\"}";
        } else if (exchange.getRequestMethod().equals("POST")
            && path.equals("/gateway/api/requests")) {
          int[] code = new int[1];
          answer = create(body, code);
          status = code[0];
        } else if (exchange.getRequestMethod().equals("DELETE")
            && path.startsWith("/gateway/api/requests/")) {
          Pending pending = withdraw(path.substring("/gateway/api/requests/".length()));
          status = pending == null ? 404 : 200;
          answer = pending == null ? "{\"error\":\"not found\"}" : status(pending);
        } else if (exchange.getRequestMethod().equals("GET")
            && path.startsWith("/gateway/api/requests/")) {
          Pending pending = requests.get(path.substring("/gateway/api/requests/".length()));
          status = pending == null ? 404 : 200;
          answer = pending == null ? "{\"error\":\"not found\"}" : status(pending);
        } else {
          status = 404;
          answer = "{\"error\":\"not found\"}";
        }
      }
      byte[] bytes = answer.getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().add("Content-Type", "application/json");
      exchange.sendResponseHeaders(status, bytes.length);
      exchange.getResponseBody().write(bytes);
    }
  }

  /**
   * A decision that lands between the proxy's last poll and its withdraw: the next withdraw of a
   * pending request finds it decided {@code status} rather than cancelling it.
   */
  public synchronized void landsBeforeTheWithdraw(String status) {
    landsBeforeWithdraw = status;
  }

  /** The withdraw the Berth gateway does: a pending request ends cancelled; answers it. */
  private @Nullable Pending withdraw(String id) {
    Pending pending = requests.get(id);
    if (pending == null || !pending.status().equals("PENDING")) {
      return pending;
    }
    String status = landsBeforeWithdraw.isEmpty() ? "CANCELLED" : landsBeforeWithdraw;
    Pending ended =
        new Pending(
            id,
            pending.tool(),
            pending.digest(),
            pending.arguments(),
            status,
            status.equals("CANCELLED") ? "withdrawn" : "");
    requests.put(id, ended);
    return ended;
  }

  private String create(String body, int[] code) {
    JsonNode json;
    try {
      json = JSON.readTree(body);
    } catch (JacksonException e) {
      code[0] = 400;
      return "{\"error\":\"not JSON\"}";
    }
    String id = json.path("id").asString("");
    String digest = json.path("argumentsDigest").asString("");
    Pending existing = requests.get(id);
    if (existing != null) {
      code[0] = existing.digest().equals(digest) ? 200 : 409;
      return status(existing);
    }
    Pending pending =
        new Pending(
            id,
            json.path("tool").asString(""),
            digest,
            json.path("arguments"),
            nextStatus,
            nextReason);
    requests.put(id, pending);
    code[0] = 201;
    ObjectNode created = JSON.createObjectNode().put("id", id).put("status", "PENDING");
    return JSON.writeValueAsString(created);
  }

  private static String status(Pending pending) {
    ObjectNode node =
        JSON.createObjectNode().put("id", pending.id()).put("status", pending.status());
    if (!pending.reason().isEmpty()) {
      node.put("reason", pending.reason());
    }
    return JSON.writeValueAsString(node);
  }
}
