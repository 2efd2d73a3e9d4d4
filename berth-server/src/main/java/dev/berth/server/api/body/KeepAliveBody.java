package dev.berth.server.api.body;

import dev.berth.server.api.StrictJson;

/**
 * The body of {@code POST /sessions/{id}/keepalive}; optional.
 *
 * @param seconds how long to hold the session from now, 1 s to the installation's maximum (4 h by
 *     default); absent means the maximum
 */
public record KeepAliveBody(Long seconds) {
  public KeepAliveBody {
    if (seconds != null && seconds < 1) {
      throw StrictJson.invalidField("seconds", "must be at least 1", seconds);
    }
  }
}
