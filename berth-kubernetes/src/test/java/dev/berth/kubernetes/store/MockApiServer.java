package dev.berth.kubernetes.store;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import java.util.HashMap;

/**
 * A simulated API server for tests: fabric8's mock server in CRUD mode (objects kept in memory,
 * resourceVersions checked, finalizers honoured), over plain HTTP on a free loopback port, with a
 * client for it.
 */
public final class MockApiServer implements AutoCloseable {
  public static final String NAMESPACE = "berth";

  private final KubernetesMockServer server;
  private final KubernetesClient client;

  private MockApiServer(KubernetesMockServer server) {
    this.server = server;
    this.client = server.createClient();
  }

  /**
   * The mock server logs every request at INFO through java.util.logging, thousands of lines a test
   * class; only its warnings are kept. (A strong reference: JUL holds loggers weakly, and a
   * collected one would come back at INFO.)
   */
  @SuppressWarnings("UnusedVariable") // held, never read: see above
  private static final java.util.logging.Logger REQUEST_LOG = quiet("io.fabric8.mockwebserver");

  private static java.util.logging.Logger quiet(String name) {
    java.util.logging.Logger logger = java.util.logging.Logger.getLogger(name);
    logger.setLevel(java.util.logging.Level.WARNING);
    return logger;
  }

  public static MockApiServer start() {
    return start(new KubernetesCrudDispatcher());
  }

  /** One whose requests {@code dispatcher} answers (a CRUD dispatcher that answers more). */
  public static MockApiServer start(KubernetesCrudDispatcher dispatcher) {
    KubernetesMockServer server =
        new KubernetesMockServer(
            new Context(), new MockWebServer(), new HashMap<>(), dispatcher, false);
    server.init();
    return new MockApiServer(server);
  }

  public KubernetesClient client() {
    return client;
  }

  /** The loopback port it listens on, for clients configured otherwise than {@link #client}. */
  public int port() {
    return server.getPort();
  }

  @Override
  public void close() {
    client.close();
    server.destroy();
  }
}
