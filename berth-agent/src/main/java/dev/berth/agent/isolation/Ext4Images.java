package dev.berth.agent.isolation;

import dev.berth.agent.isolation.StateDisks.Kind;
import dev.berth.protocol.files.PrivateFiles;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes, mounts and unmounts the ext4 images of state disks with the programs of one {@link Kind}:
 * mkfs.ext4 for both, then mount and umount through a loop device ({@link Kind#LOOP}), or fuse2fs
 * and fusermount3 ({@link Kind#FUSE}). Which image goes where, and when, is for {@link StateDisks}
 * to decide.
 */
final class Ext4Images {
  // Part of how state disks are mounted: logged under their name.
  private static final Logger LOG = LoggerFactory.getLogger(StateDisks.class);

  private final Kind kind;
  private final String mkfs;
  private final String mounter;
  private final String unmounter;
  private final long uid;
  private final long gid;

  /**
   * @param kind how images are mounted
   * @param mkfs mkfs.ext4
   * @param mounter mount, or fuse2fs
   * @param unmounter umount, or fusermount3
   * @param uid the node's uid, which owns each image's root directory
   * @param gid the node's gid, likewise
   */
  Ext4Images(Kind kind, String mkfs, String mounter, String unmounter, long uid, long gid) {
    this.kind = kind;
    this.mkfs = mkfs;
    this.mounter = mounter;
    this.unmounter = unmounter;
    this.uid = uid;
    this.gid = gid;
  }

  Kind kind() {
    return kind;
  }

  /**
   * Makes {@code image}, sparse, with room for {@code capBytes} and {@code reserveBytes} beyond
   * them that only root may fill (ext4's reserved blocks).
   */
  void format(Path image, long capBytes, long reserveBytes) throws IOException {
    long size = capBytes + reserveBytes;
    // Sparse: the host's disk holds only the blocks written.
    try (var channel =
        PrivateFiles.open(image, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
      channel.position(size - 1);
      channel.write(ByteBuffer.wrap(new byte[1]));
    }
    double reservePercent = 100.0 * reserveBytes / size;
    try {
      DiskCommand.run(
          List.of(
              mkfs,
              "-q",
              "-F",
              "-m",
              String.format(Locale.ROOT, "%.4f", reservePercent),
              "-E",
              "lazy_itable_init=1,lazy_journal_init=1,root_owner=" + uid + ":" + gid,
              // fuse2fs cannot write a journal ("Writing to the journal is not supported"); the
              // kernel's ext4 keeps one, so that a host crash leaves the session's files whole.
              "-O",
              kind == Kind.FUSE ? "^has_journal" : "has_journal",
              image.toString()));
    } catch (IOException e) {
      Files.deleteIfExists(image);
      throw e;
    }
  }

  /** Mounts {@code image} at {@code volume} and waits until the mount is there. */
  void mount(Path image, Path volume) throws IOException {
    if (kind == Kind.FUSE) {
      prepareFuseMount(image);
    }
    String said =
        kind == Kind.LOOP
            ? DiskCommand.run(
                List.of(
                    mounter,
                    "-o",
                    // discard: what the session deletes is given back to the host's disk.
                    "loop,nosuid,nodev,noatime,discard",
                    image.toString(),
                    volume.toString()))
            : DiskCommand.run(fuseMount(image, volume));
    try {
      awaitMounted(volume, said);
    } catch (IOException e) {
      if (kind == Kind.FUSE) {
        // A daemon that mounts after all, later, must not serve an image nobody tracks.
        FuseDaemons.endServing(image);
      }
      throw e;
    }
  }

  /** Unmounts {@code volume}; a {@code lazy} unmount detaches it now and frees it once unused. */
  void unmount(Path volume, boolean lazy) throws IOException {
    if (kind == Kind.LOOP) {
      DiskCommand.run(
          lazy
              ? List.of(unmounter, "-l", volume.toString())
              : List.of(unmounter, volume.toString()));
    } else {
      DiskCommand.run(
          lazy
              ? List.of(unmounter, "-u", "-z", volume.toString())
              : List.of(unmounter, "-u", volume.toString()));
    }
  }

  /**
   * fuse2fs answers 0 once it forked its daemon, before fusermount3 mounted anything: a mount that
   * fails (fusermount3 without its setuid, under no_new_privs, say) is seen only as no mount.
   */
  private void awaitMounted(Path volume, String said) throws IOException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (!MountTable.mounted(volume)) {
      if (System.nanoTime() - deadline > 0) {
        throw new IOException(
            kind.wireName()
                + " mount of "
                + volume
                + " did not appear"
                + (said.isBlank() ? "" : " (" + said.replace('\n', ' ').trim() + ")")
                + (kind == Kind.FUSE
                    ? "; fusermount3 must be setuid root and the node not run under no_new_privs"
                    : ""));
      }
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted while waiting for the mount of " + volume, e);
      }
    }
  }

  private List<String> fuseMount(Path image, Path volume) {
    List<String> argv = new ArrayList<>(List.of(mounter, image.toString(), volume.toString()));
    // A root node runs each session as a uid of its own, which a FUSE mount refuses by default;
    // fusermount3 adds nosuid and nodev for an ordinary user, a root node must ask for them.
    argv.addAll(List.of("-o", uid == 0 ? "allow_other,nosuid,nodev" : "nosuid,nodev"));
    return argv;
  }

  /**
   * Makes the image safe to mount with fuse2fs: no daemon may still serve it (one a lazy unmount
   * left behind, or one of a killed node that lost its mount) — two would write one filesystem at
   * once —, and an image whose daemon died is checked first, as fuse2fs writes no journal.
   */
  private void prepareFuseMount(Path image) {
    FuseDaemons.endServing(image);
    SandboxTools.which("e2fsck")
        .ifPresent(
            e2fsck -> {
              try {
                DiskCommand.run(List.of(e2fsck, "-p", image.toString()));
              } catch (IOException e) {
                // Exit 1 (errors corrected) is success for a preen; anything worse is logged
                // and the mount tried: fuse2fs refuses what it cannot read.
                LOG.warn("e2fsck -p {}: {}", image, e.getMessage());
              }
            });
  }
}
