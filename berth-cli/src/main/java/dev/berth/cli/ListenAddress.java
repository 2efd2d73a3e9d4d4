package dev.berth.cli;

import dev.berth.server.ServerConfig;
import java.util.Objects;

/**
 * A {@code HOST:PORT} pair to listen on. IPv6 hosts are written in brackets, as in {@code
 * [::1]:8080}.
 */
record ListenAddress(String host, int port) {

  ListenAddress {
    Objects.requireNonNull(host, "host must not be null");
  }

  /**
   * Parses {@code HOST:PORT}.
   *
   * @throws IllegalArgumentException with a message naming {@code text} if it is not a valid
   *     address
   */
  static ListenAddress parse(String text) {
    Objects.requireNonNull(text, "text must not be null");
    int colon = text.lastIndexOf(':');
    if (colon <= 0 || colon == text.length() - 1) {
      throw invalid(text, "expected HOST:PORT, for example 127.0.0.1:8080");
    }
    String host = text.substring(0, colon);
    String portText = text.substring(colon + 1);
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    } else if (host.contains(":")) {
      throw invalid(text, "write an IPv6 host in brackets, for example [::1]:8080");
    }
    if (host.isBlank() || !host.strip().equals(host)) {
      throw invalid(text, "the host is empty or has spaces");
    }
    if (!portText.chars().allMatch(c -> c >= '0' && c <= '9') || portText.length() > 5) {
      throw invalid(text, "the port must be a number from 0 to " + ServerConfig.MAX_PORT);
    }
    int port = Integer.parseInt(portText);
    if (port > ServerConfig.MAX_PORT) {
      throw invalid(text, "the port must be a number from 0 to " + ServerConfig.MAX_PORT);
    }
    return new ListenAddress(host, port);
  }

  private static IllegalArgumentException invalid(String text, String why) {
    return new IllegalArgumentException("'" + text + "' is not a valid listen address: " + why);
  }

  /** The address as a URL authority, with IPv6 hosts in brackets. */
  String authority() {
    return (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
  }
}
