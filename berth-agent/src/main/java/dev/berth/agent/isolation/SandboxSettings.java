package dev.berth.agent.isolation;

import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What the operator asks of every session's sandbox on this host; {@link Sandbox#detect} turns it
 * into what is in force.
 *
 * @param network the network mode, or empty for the default: {@code egress} where slirp4netns is
 *     installed and works, else {@code none}
 * @param binds the operator's extra binds, in order
 * @param masks paths under {@code /etc} (or anywhere in the view) hidden from sessions, besides the
 *     built-in ones ({@code /etc/shadow}, {@code /etc/gshadow}, ssh host keys, ...)
 */
public record SandboxSettings(
    Optional<NetworkMode> network, List<SandboxBind> binds, List<Path> masks) {

  public SandboxSettings {
    Objects.requireNonNull(network, "network");
    binds = List.copyOf(binds);
    masks = masks.stream().map(p -> p.toAbsolutePath().normalize()).toList();
  }

  /** The default network, no binds, the built-in masks. */
  public static SandboxSettings defaults() {
    return new SandboxSettings(Optional.empty(), List.of(), List.of());
  }

  public SandboxSettings withNetwork(NetworkMode mode) {
    return new SandboxSettings(Optional.of(mode), binds, masks);
  }
}
