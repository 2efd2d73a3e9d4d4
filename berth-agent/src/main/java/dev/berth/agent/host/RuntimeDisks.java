package dev.berth.agent.host;

import dev.berth.agent.archive.Trees;
import dev.berth.agent.isolation.Sandbox;
import dev.berth.agent.isolation.StateDisks;
import dev.berth.core.session.SessionId;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where a runtime lives on the host: its directory, {@code <root>/sessions/<sid>/runtimes/<name>},
 * and the disk image mounted on its {@code volume/} ({@link StateDisks}), which caps what its
 * workload can write. Attaches, detaches and deletes them, reporting a disk that fails to mount.
 */
final class RuntimeDisks {

  private static final Logger LOG = LoggerFactory.getLogger(RuntimeDisks.class);

  private final HostConfig config;
  private final Sandbox sandbox;
  private final NodeMeters meters;

  RuntimeDisks(HostConfig config, Sandbox sandbox, NodeMeters meters) {
    this.config = config;
    this.sandbox = sandbox;
    this.meters = meters;
  }

  Path directory(SessionId session, String runtime) {
    return config.sessionDirectory(session.value()).resolve("runtimes").resolve(runtime);
  }

  /** Mounts a new runtime's disk, of the host's cap. */
  void attach(Path directory) throws IOException {
    try {
      sandbox.disks().attach(directory, config.limits().maxDiskBytes(), config.diskReserveBytes());
    } catch (IOException | RuntimeException e) {
      meters.sandboxFailed(NodeMeters.SandboxFailure.DISK);
      throw e;
    }
  }

  /**
   * Mounts a found runtime's disk. A runtime an earlier version left with {@code state/} directly
   * in its directory gets it moved into {@code volume/}, without an image: it was made without a
   * cap, and a resume gives the session a new runtime with one.
   */
  void attachFound(Path directory) throws IOException {
    Path legacy = directory.resolve("state");
    Path volume = StateDisks.volume(directory);
    // Also after a crash between making volume/ and the move: volume/ is then still empty.
    if (Files.isDirectory(legacy, LinkOption.NOFOLLOW_LINKS)
        && !Files.exists(directory.resolve("volume.img"), LinkOption.NOFOLLOW_LINKS)
        && !StateDisks.mounted(volume)) {
      Files.createDirectories(volume);
      Files.move(legacy, HostedRuntime.state(directory), StandardCopyOption.ATOMIC_MOVE);
      return;
    }
    attach(directory);
  }

  void detach(Path directory) {
    try {
      sandbox.disks().detach(directory);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot unmount the disk of " + directory, e);
    }
  }

  /** Unmounts without failing: the host is closing, and the next one mounts the images again. */
  void detachQuietly(Path directory) {
    sandbox.disks().detachQuietly(directory);
  }

  /** Removes what a runtime that never ran left, unless its disk is still mounted. */
  void discard(Path directory) {
    sandbox.disks().detachQuietly(directory);
    try {
      if (StateDisks.mounted(StateDisks.volume(directory))) {
        // Deleting through a mount that would not go would fail half-way, on the image's files.
        LOG.warn("keeping {}: its disk is still mounted", directory);
        return;
      }
    } catch (IOException e) {
      LOG.warn("keeping {}: cannot tell whether its disk is mounted", directory, e);
      return;
    }
    delete(directory);
  }

  /** Workloads leave read-only directories behind (Go's module cache is 0555): Trees opens them. */
  static void delete(Path root) {
    try {
      Trees.delete(root);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete " + root, e);
    }
  }
}
