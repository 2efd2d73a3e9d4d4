package dev.berth.agent.isolation;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds out, once per process, how this host mounts state images: by attaching, writing and
 * detaching a small one with each {@link StateDisks.Kind} the node could use, a loop mount first
 * when it is root, then fuse2fs.
 */
final class StateDiskProbe {
  // What the probe finds is the state disks' detection: logged under their name.
  private static final Logger LOG = LoggerFactory.getLogger(StateDisks.class);
  private static final long PROBE_BYTES = 16L * 1024 * 1024;
  private static volatile Optional<StateDisks> detected = Optional.empty();

  private StateDiskProbe() {}

  /**
   * What this host can mount, tried once per process with a small image in {@code scratch}: a loop
   * mount when the process is root, else fuse2fs, else nothing.
   */
  static StateDisks detect(boolean root, long uid, long gid, Path scratch) {
    Optional<StateDisks> known = detected;
    if (known.isPresent()) {
      return known.get();
    }
    StateDisks found = probe(root, uid, gid, scratch);
    detected = Optional.of(found);
    return found;
  }

  private static StateDisks probe(boolean root, long uid, long gid, Path scratch) {
    if (SandboxTools.which("mkfs.ext4").isEmpty()) {
      LOG.info("no mkfs.ext4 (e2fsprogs): session disk caps are measured, not enforced");
      return StateDisks.none();
    }
    List<StateDisks> candidates = new ArrayList<>();
    if (root) {
      StateDisks.of(StateDisks.Kind.LOOP, uid, gid).ifPresent(candidates::add);
    }
    StateDisks.of(StateDisks.Kind.FUSE, uid, gid).ifPresent(candidates::add);
    for (StateDisks candidate : candidates) {
      Path probe;
      try {
        // A fresh name of its own, 0700: another user of a shared /tmp cannot have placed a link
        // or an image of theirs where a root node is about to mount.
        probe = Files.createTempDirectory(scratch, "berth-disk-probe-");
      } catch (IOException e) {
        LOG.info("session disks: cannot make a probe directory in {}: {}", scratch, e.getMessage());
        return StateDisks.none();
      }
      if (works(candidate, probe)) {
        return candidate;
      }
    }
    LOG.info(
        "session disk caps are measured, not enforced: {}",
        root
            ? "neither loop mounts nor fuse2fs work here"
            : "fuse2fs (package fuse2fs) with fusermount3 (fuse3) and a writable /dev/fuse are"
                + " needed on a node that is not root");
    return StateDisks.none();
  }

  /** Attaches, writes and detaches an image in {@code probe}, which is deleted afterwards. */
  private static boolean works(StateDisks candidate, Path probe) {
    try {
      candidate.attach(probe, PROBE_BYTES, 0);
      Files.createDirectories(StateDisks.volume(probe).resolve("state"));
      candidate.detach(probe);
      return true;
    } catch (IOException | RuntimeException e) {
      LOG.info("session disks: {} mounts do not work here: {}", candidate.kind(), e.getMessage());
      candidate.detachQuietly(probe);
      return false;
    } finally {
      ScratchDirectories.delete(probe);
    }
  }
}
