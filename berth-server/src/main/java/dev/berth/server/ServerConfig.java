package dev.berth.server;

import java.nio.file.Path;
import java.util.Objects;

/**
 * Where the Berth server listens and where it keeps its data.
 *
 * @param host the host name or IP address to bind to, for example {@code 127.0.0.1}
 * @param port the TCP port to bind to, 0..65535; 0 picks a free port
 * @param dataDir the directory that holds the server's state
 */
public record ServerConfig(String host, int port, Path dataDir) {

  public static final int MAX_PORT = 65_535;

  public ServerConfig {
    Objects.requireNonNull(host, "host must not be null");
    Objects.requireNonNull(dataDir, "dataDir must not be null");
    if (host.isBlank()) {
      throw new IllegalArgumentException("host must not be blank, got '" + host + "'");
    }
    if (port < 0 || port > MAX_PORT) {
      throw new IllegalArgumentException(
          "port must be between 0 and " + MAX_PORT + ", got " + port);
    }
  }
}
