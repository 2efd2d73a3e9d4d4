package dev.berth.server;

import dev.berth.server.store.sqlite.SqliteSessionStore;
import io.javalin.Javalin;
import io.javalin.http.Context;
import java.time.InstantSource;
import java.util.Map;
import java.util.Objects;
import tools.jackson.databind.json.JsonMapper;

/**
 * The Berth HTTP server. Construct it with a {@link ServerConfig}, call {@link #start()}, and
 * {@link #close()} it when done.
 */
public final class BerthServer implements AutoCloseable {

  private static final String JSON = "application/json";

  private enum State {
    NEW,
    STARTED,
    CLOSED
  }

  private final ServerConfig config;
  private final String healthBody;
  private final Javalin app;
  private State state = State.NEW;
  private SqliteSessionStore store;

  public BerthServer(ServerConfig config) {
    this.config = Objects.requireNonNull(config, "config must not be null");
    this.healthBody = JsonMapper.builder().build().writeValueAsString(Map.of("status", "ok"));
    this.app =
        Javalin.create(
            javalin -> {
              javalin.jetty.host = config.host();
              javalin.jetty.port = config.port();
              javalin.concurrency.useVirtualThreads = true;
              javalin.startup.showJavalinBanner = false;
              javalin.routes.get("/healthz", this::health);
            });
  }

  /**
   * Binds the configured address and starts serving.
   *
   * @return this server
   * @throws IllegalStateException if the server was already started or closed
   */
  public synchronized BerthServer start() {
    if (state != State.NEW) {
      throw new IllegalStateException("server cannot be started: it is " + state);
    }
    // The store opens first, so its schema migrations have run before anything is served.
    store = SqliteSessionStore.open(config.dataDir().resolve("berth.db"), InstantSource.system());
    try {
      app.start();
    } catch (RuntimeException e) {
      store.close();
      throw e;
    }
    state = State.STARTED;
    return this;
  }

  /**
   * The port the server is bound to; when the configured port is 0 this is the port the system
   * picked.
   *
   * @throws IllegalStateException if the server is not running
   */
  public synchronized int port() {
    if (state != State.STARTED) {
      throw new IllegalStateException("server has no port: it is " + state);
    }
    return app.port();
  }

  /** The configuration this server was created with. */
  public ServerConfig config() {
    return config;
  }

  /** Stops the server. Calling it again, or before {@link #start()}, does nothing. */
  @Override
  public synchronized void close() {
    if (state == State.STARTED) {
      app.stop();
      store.close();
    }
    state = State.CLOSED;
  }

  private void health(Context ctx) {
    ctx.status(200).contentType(JSON).result(healthBody);
  }
}
