package dev.berth.agent.host;

import dev.berth.agent.isolation.Sandbox;
import java.net.URI;
import java.time.Clock;
import java.util.Objects;
import java.util.Optional;

/**
 * What every runtime of one host shares: its configuration, sandbox, meters and clock, and where
 * its agent sessions' credential proxy runs.
 *
 * @param sidecarProxy where an agent session's CLI reaches a credential proxy that runs beside the
 *     host rather than under it (a session pod's {@code proxy} container, at {@code
 *     http://127.0.0.1:8091}): the host then starts no proxy of its own and holds no provider
 *     token; empty on a node, which starts one proxy per agent session
 */
record HostParts(
    HostConfig config,
    Sandbox sandbox,
    NodeMeters meters,
    Clock clock,
    Optional<URI> sidecarProxy) {

  HostParts {
    Objects.requireNonNull(sidecarProxy, "sidecarProxy");
  }

  HostParts(HostConfig config, Sandbox sandbox, NodeMeters meters, Clock clock) {
    this(config, sandbox, meters, clock, Optional.empty());
  }
}
