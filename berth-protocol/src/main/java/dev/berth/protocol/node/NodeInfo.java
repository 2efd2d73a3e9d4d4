package dev.berth.protocol.node;

import dev.berth.protocol.files.PrivateFiles;
import dev.berth.protocol.json.AgentJson;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import tools.jackson.databind.json.JsonMapper;

/**
 * How to reach a running node: written by the node once it listens ({@code node.json} in its state
 * directory), read by the control plane's local runtime. A file left by a node that died names a
 * pid that is gone or a port that does not answer; readers check both.
 */
public record NodeInfo(int format, long pid, String host, int port, Instant startedAt) {

  public static final String FILE = "node.json";
  private static final JsonMapper JSON = AgentJson.mapper();

  public NodeInfo {
    Objects.requireNonNull(host, "host");
    Objects.requireNonNull(startedAt, "startedAt");
  }

  public String baseUrl() {
    return "http://" + host + ":" + port;
  }

  public void write(Path stateDirectory) {
    Path temp = stateDirectory.resolve(FILE + ".tmp");
    try {
      PrivateFiles.write(temp, JSON.writeValueAsBytes(this));
      Files.move(
          temp,
          stateDirectory.resolve(FILE),
          StandardCopyOption.ATOMIC_MOVE,
          StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + stateDirectory.resolve(FILE), e);
    }
  }

  /** The node's info, or empty when no node has written one (or it was removed at shutdown). */
  public static Optional<NodeInfo> read(Path stateDirectory) {
    Path file = stateDirectory.resolve(FILE);
    try {
      return Optional.of(JSON.readValue(Files.readAllBytes(file), NodeInfo.class));
    } catch (NoSuchFileException e) {
      return Optional.empty();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
  }

  /** Whether the process that wrote this still runs. */
  public boolean processAlive() {
    return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
  }
}
