package dev.berth.server;

import dev.berth.server.api.OpenApiSpec;
import dev.berth.server.api.PublicApi;
import io.javalin.Javalin;
import io.javalin.compression.CompressionStrategy;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.Comparator;
import java.util.Set;
import java.util.TreeSet;

/**
 * The HTTP server in front of the public API: Javalin on virtual threads, bound to the configured
 * address, with the connection settings the API relies on.
 */
final class ServerHttp {

  private ServerHttp() {}

  /**
   * Refuses at once an address something already listens on, before anything is opened or started:
   * Jetty would find it only at the end, after the store, the node and the token.
   */
  static void requireFreeAddress(ServerConfig config) {
    if (config.port() == 0) {
      return;
    }
    try (ServerSocket probe = new ServerSocket()) {
      probe.setReuseAddress(true);
      probe.bind(new InetSocketAddress(config.host(), config.port()));
    } catch (IOException e) {
      throw new IllegalStateException(
          config.host()
              + ":"
              + config.port()
              + " cannot be listened on ("
              + e.getMessage()
              + "); stop what listens there, or give --listen another address",
          e);
    }
  }

  /**
   * Binds the configured address and serves {@code api} on it; a connection that sends nothing for
   * {@code readTimeout} (an idle one, or a request body that stalls) is closed.
   */
  static Javalin start(ServerConfig config, PublicApi api, java.time.Duration readTimeout) {
    Javalin app =
        Javalin.create(
            javalin -> {
              javalin.jetty.host = config.host();
              javalin.jetty.port = config.port();
              javalin.concurrency.useVirtualThreads = true;
              javalin.startup.showJavalinBanner = false;
              javalin.http.compressionStrategy = CompressionStrategy.NONE;
              // Jetty's header cache is searched character by character for every header; with a
              // long bearer token on kept connections it cost 5% of a write's CPU (bench/).
              javalin.jetty.modifyHttpConfiguration(
                  http -> {
                    http.setHeaderCacheSize(0);
                    // The read timeout. Set here, on the configuration every connection uses:
                    // Javalin creates its connector after the modifyServer hooks ran, so a timeout
                    // set on the server's connectors there never applied (Jetty's own 30 s did).
                    http.setIdleTimeout(readTimeout.toMillis());
                  });
              api.register(javalin);
            });
    app.start();
    return app;
  }

  /**
   * Where a process on this machine (the node's credential proxies) reaches the server: the
   * loopback address when it listens on every address or on loopback, else the address it listens
   * on.
   */
  static java.net.URI loopbackBase(ServerConfig config, int port) {
    String host = config.host();
    String reach;
    try {
      java.net.InetAddress address = java.net.InetAddress.getByName(host);
      if (address.isAnyLocalAddress() || address.isLoopbackAddress()) {
        reach =
            address instanceof java.net.Inet6Address && address.isLoopbackAddress()
                ? "[::1]"
                : "127.0.0.1";
      } else {
        reach =
            address instanceof java.net.Inet6Address
                ? "[" + address.getHostAddress() + "]"
                : address.getHostAddress();
      }
    } catch (java.net.UnknownHostException e) {
      reach = host;
    }
    return java.net.URI.create("http://" + reach + ":" + port);
  }

  /** Every route {@code app} answers (WebSocket upgrades as GET), with its path templates. */
  static Set<OpenApiSpec.Route> routes(Javalin app) {
    Set<OpenApiSpec.Route> routes =
        new TreeSet<>(
            Comparator.comparing(OpenApiSpec.Route::path).thenComparing(OpenApiSpec.Route::method));
    for (var handler : app.unsafe.internalRouter.allHttpHandlers()) {
      if (handler.endpoint.method.isHttpMethod()) {
        routes.add(
            new OpenApiSpec.Route(handler.endpoint.method.toString(), handler.endpoint.path));
      }
    }
    for (var handler : app.unsafe.internalRouter.allWsHandlers()) {
      if (handler.getType() == io.javalin.websocket.WsHandlerType.WEBSOCKET) {
        routes.add(new OpenApiSpec.Route("GET", handler.getPath()));
      }
    }
    return routes;
  }
}
