package dev.berth.agent.host;

import dev.berth.agent.contract.LocalContract;
import dev.berth.core.session.SessionId;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a host opening on its root does first: it hosts again the runtimes a previous host left
 * there (stopped, or still awaiting their archive), discards the directories of runtimes that never
 * ran, and reclaims whatever of the previous host's processes survived it.
 */
final class HostReload {

  private static final Logger LOG = LoggerFactory.getLogger(HostReload.class);

  private final HostParts parts;
  private final RuntimeRegistry runtimes;
  private final SessionContracts contracts;
  private final RuntimeDisks disks;

  HostReload(
      HostParts parts, RuntimeRegistry runtimes, SessionContracts contracts, RuntimeDisks disks) {
    this.parts = parts;
    this.runtimes = runtimes;
    this.contracts = contracts;
    this.disks = disks;
  }

  void run() {
    Path root = parts.config().root();
    Path sessions = root.resolve("sessions");
    if (!Files.isDirectory(sessions)) {
      return;
    }
    try (Stream<Path> dirs = Files.list(sessions)) {
      for (Path sessionDir : dirs.toList()) {
        reloadSession(sessionDir);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list " + sessions, e);
    }
    // Nothing of what the previous host ran for these runtimes may outlive it.
    parts
        .sandbox()
        .reclaim(
            runtimes.all().stream()
                .map(r -> HostedRuntime.planName(r.descriptor().runtime(), root))
                .toList());
  }

  private void reloadSession(Path sessionDir) throws IOException {
    Path runtimesDir = sessionDir.resolve("runtimes");
    if (!Files.isDirectory(runtimesDir)) {
      return;
    }
    List<Path> found = new ArrayList<>();
    try (Stream<Path> dirs = Files.list(runtimesDir)) {
      dirs.forEach(found::add);
    }
    for (Path dir : found) {
      if (!Files.exists(dir.resolve(RuntimeDescriptor.FILE))) {
        // A crash between creating the directory and describing it: nothing ever ran there.
        disks.discard(dir);
        continue;
      }
      RuntimeDescriptor descriptor = RuntimeDescriptor.read(dir);
      SessionId session = descriptor.sessionId();
      try {
        disks.attachFound(dir);
      } catch (IOException e) {
        // One runtime whose disk cannot be mounted must not keep the host from serving the others:
        // the control plane finds it missing and treats it as a lost runtime. Its files stay.
        LOG.error("cannot mount the disk of runtime {}; not hosting it", descriptor.runtime(), e);
        continue;
      }
      host(session, descriptor, dir);
    }
  }

  /** Hosts a found runtime, holding its session's contract open as a created one does. */
  private void host(SessionId session, RuntimeDescriptor descriptor, Path dir) throws IOException {
    LocalContract held = contracts.hold(session);
    try {
      runtimes.put(session, HostedRuntime.reload(descriptor, dir, parts, held));
    } catch (IOException | RuntimeException e) {
      contracts.release(session);
      throw e;
    }
    LOG.info(
        "reloaded runtime {} ({})",
        descriptor.runtime(),
        descriptor.awaitRestore() ? "still awaiting its archive" : "stopped: the host restarted");
  }
}
