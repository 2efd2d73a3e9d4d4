package dev.berth.server;

import dev.berth.server.runtime.local.LocalNode;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Where the Berth server listens, where it keeps its data, and how it runs the local data plane.
 *
 * @param host the host name or IP address to bind to, for example {@code 127.0.0.1}
 * @param port the TCP port to bind to, 0..65535; 0 picks a free port
 * @param dataDir the directory that holds the server's state (store, tokens, the node's state)
 * @param adminToken the admin token to use ({@code BERTH_ADMIN_TOKEN}); otherwise the one in the
 *     data directory, created at first start
 * @param nodeCommand the command that runs a local node on a directory given as last argument
 * @param failpoints test-only crash points ({@code BERTH_FAILPOINTS}); empty in production
 */
public record ServerConfig(
    String host,
    int port,
    Path dataDir,
    Optional<String> adminToken,
    List<String> nodeCommand,
    String failpoints) {

  public static final int MAX_PORT = 65_535;

  public ServerConfig {
    Objects.requireNonNull(host, "host must not be null");
    Objects.requireNonNull(dataDir, "dataDir must not be null");
    Objects.requireNonNull(adminToken, "adminToken must not be null");
    nodeCommand = List.copyOf(nodeCommand);
    Objects.requireNonNull(failpoints, "failpoints must not be null");
    if (host.isBlank()) {
      throw new IllegalArgumentException("host must not be blank, got '" + host + "'");
    }
    if (port < 0 || port > MAX_PORT) {
      throw new IllegalArgumentException(
          "port must be between 0 and " + MAX_PORT + ", got " + port);
    }
  }

  /** Defaults for everything but the address and the data directory. */
  public ServerConfig(String host, int port, Path dataDir) {
    this(host, port, dataDir, Optional.empty(), LocalNode.javaLaunchCommand(), "");
  }

  public ServerConfig withAdminToken(Optional<String> token) {
    return new ServerConfig(host, port, dataDir, token, nodeCommand, failpoints);
  }

  public ServerConfig withFailpoints(String names) {
    return new ServerConfig(host, port, dataDir, adminToken, nodeCommand, names);
  }
}
