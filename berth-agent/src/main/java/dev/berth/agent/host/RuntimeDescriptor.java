package dev.berth.agent.host;

import dev.berth.agent.isolation.NetworkMode;
import dev.berth.core.session.SessionId;
import dev.berth.protocol.files.PrivateFiles;
import dev.berth.protocol.json.AgentJson;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.json.JsonMapper;

/**
 * What a host knows of one runtime it created, persisted as {@code runtime.json} in the runtime's
 * directory so that a restarted host still lists it with its ownership labels (and the control
 * plane can then remove it, or read its output).
 *
 * @param awaitRestore true from a provision that awaits an archive until the restore started the
 *     shell: a host restarted in between finds a runtime in which nothing ever ran, and lets it
 *     await its archive again instead of reporting it stopped
 * @param network the request's network limit ({@code "none"}), or {@code null} for the host's mode
 * @param disconnect the request's disconnect policy, or {@code null} for the host's
 */
public record RuntimeDescriptor(
    int format,
    String session,
    String runtime,
    long incarnation,
    String workload,
    Map<String, String> labels,
    Instant createdAt,
    boolean awaitRestore,
    @Nullable String network,
    RuntimeRequest.@Nullable Disconnect disconnect) {

  static final String FILE = "runtime.json";
  private static final JsonMapper JSON = AgentJson.mapper();

  public RuntimeDescriptor {
    Objects.requireNonNull(session, "session");
    Objects.requireNonNull(runtime, "runtime");
    Objects.requireNonNull(workload, "workload");
    labels = Map.copyOf(labels);
    Objects.requireNonNull(createdAt, "createdAt");
  }

  static RuntimeDescriptor of(SessionId session, RuntimeRequest request, Instant now) {
    return new RuntimeDescriptor(
        1,
        session.value(),
        request.runtime(),
        request.incarnation(),
        request.workload(),
        request.labels(),
        now,
        request.awaitRestore(),
        request.network(),
        request.disconnect());
  }

  /** The most network the runtime may have, when its request narrowed it. */
  Optional<NetworkMode> networkLimit() {
    return Optional.ofNullable(network).map(NetworkMode::parse);
  }

  /** This descriptor once the runtime's archive is restored and its shell runs. */
  RuntimeDescriptor restored() {
    return new RuntimeDescriptor(
        format,
        session,
        runtime,
        incarnation,
        workload,
        labels,
        createdAt,
        false,
        network,
        disconnect);
  }

  SessionId sessionId() {
    return new SessionId(session);
  }

  /** Writes the descriptor atomically: a crash leaves the old file or the new one, never half. */
  void write(Path directory) {
    Path temp = directory.resolve(FILE + ".tmp");
    try {
      PrivateFiles.write(temp, JSON.writeValueAsBytes(this));
      Files.move(
          temp,
          directory.resolve(FILE),
          StandardCopyOption.ATOMIC_MOVE,
          StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + directory.resolve(FILE), e);
    }
  }

  static RuntimeDescriptor read(Path directory) {
    Path file = directory.resolve(FILE);
    try {
      return JSON.readValue(Files.readAllBytes(file), RuntimeDescriptor.class);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
  }
}
