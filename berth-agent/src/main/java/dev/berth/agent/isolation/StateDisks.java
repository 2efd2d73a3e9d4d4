package dev.berth.agent.isolation;

import dev.berth.protocol.files.PrivateFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The filesystem a runtime's state lives on. Each runtime gets an ext4 image of its own ({@code
 * volume.img} beside {@code runtime.json}), as large as the session's disk cap, mounted at {@code
 * volume/}; {@code state/} is {@code volume/state}. A session that fills its cap gets "No space
 * left on device" from its own filesystem, and the host's disk, the node and the other sessions
 * never notice. The image is sparse: it takes on the host only what the session wrote.
 *
 * <p>Why a filesystem and not a quota or a watcher: project quotas need a host filesystem mounted
 * with them, which containers rarely have; a watcher that measures and then stops the session lets
 * it overshoot between two looks and cannot fail a write. An image enforces the cap at each write,
 * on any host filesystem.
 *
 * <p>How the image is mounted depends on the node:
 *
 * <ul>
 *   <li>{@link Kind#LOOP}: a root node mounts it through a loop device (the kernel's ext4). The
 *       image is larger than the cap by a reserve that only root may fill (ext4's reserved blocks):
 *       the node writes the output log as root, so a session that fills its cap still has its
 *       output, and its "No space left on device", recorded.
 *   <li>{@link Kind#FUSE}: an unprivileged node mounts it with fuse2fs through the setuid
 *       fusermount3. The session and the node are one host uid there, so no reserve can tell them
 *       apart: the output log shares the cap, and output written while the disk is full is lost.
 *   <li>{@link Kind#NONE}: neither works; {@code volume/} is a plain directory, the cap is only
 *       measured, and the isolation report names it as not enforced.
 * </ul>
 *
 * <p>A mount outlives the node that made it (a killed node leaves it, and a fuse2fs daemon keeps
 * serving): {@link #attach} finds and reuses it, and remounts one whose daemon died. A node that
 * closes unmounts what it mounted; the next one mounts the images again.
 */
public final class StateDisks {
  private static final Logger LOG = LoggerFactory.getLogger(StateDisks.class);

  /** How this host mounts state images. */
  public enum Kind {
    LOOP,
    FUSE,
    NONE;

    /** As the isolation report names it: {@code loop}, {@code fuse} or {@code none}. */
    public String wireName() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /**
   * What one runtime's state takes against its cap.
   *
   * @param capBytes the cap
   * @param usedBytes what is taken, the filesystem's own records included: {@code capBytes -
   *     availableBytes} when enforced, else the size of the files
   * @param availableBytes what the session may still write
   * @param enforced whether a write beyond the cap fails
   */
  public record Usage(long capBytes, long usedBytes, long availableBytes, boolean enforced) {}

  private final Ext4Images images;

  private StateDisks(Ext4Images images) {
    this.images = images;
  }

  /** No images: {@code volume/} is a plain directory and the cap is only measured. */
  public static StateDisks none() {
    return new StateDisks(new Ext4Images(Kind.NONE, "", "", "", -1, -1));
  }

  /**
   * Mounts of {@code kind} for a node running as {@code uid}:{@code gid}, when the tools are
   * installed; whether they work here is for {@link #attach} to find out.
   */
  static Optional<StateDisks> of(Kind kind, long uid, long gid) {
    Optional<String> mkfs = SandboxTools.which("mkfs.ext4");
    return switch (kind) {
      case NONE -> Optional.of(none());
      case LOOP -> {
        Optional<String> mount = SandboxTools.which("mount");
        Optional<String> umount = SandboxTools.which("umount");
        yield mkfs.isPresent() && mount.isPresent() && umount.isPresent()
            ? Optional.of(
                new StateDisks(
                    new Ext4Images(kind, mkfs.get(), mount.get(), umount.get(), uid, gid)))
            : Optional.empty();
      }
      case FUSE -> {
        Optional<String> fuse2fs = SandboxTools.which("fuse2fs");
        Optional<String> fusermount = SandboxTools.which("fusermount3");
        yield mkfs.isPresent()
                && fuse2fs.isPresent()
                && fusermount.isPresent()
                && Files.isWritable(Path.of("/dev/fuse"))
            ? Optional.of(
                new StateDisks(
                    new Ext4Images(kind, mkfs.get(), fuse2fs.get(), fusermount.get(), uid, gid)))
            : Optional.empty();
      }
    };
  }

  public Kind kind() {
    return images.kind();
  }

  /** Where a runtime's filesystem is mounted; {@code state/} is in it. */
  public static Path volume(Path runtimeDirectory) {
    return runtimeDirectory.resolve("volume");
  }

  private static Path image(Path runtimeDirectory) {
    return runtimeDirectory.resolve("volume.img");
  }

  /** The cap an image was made for: a node restarted with another cap reports the one in force. */
  private static Path capFile(Path runtimeDirectory) {
    return runtimeDirectory.resolve("volume.cap");
  }

  private static long capOf(Path runtimeDirectory, long fallback) {
    try {
      return Long.parseLong(Files.readString(capFile(runtimeDirectory)).trim());
    } catch (IOException | NumberFormatException e) {
      return fallback;
    }
  }

  /**
   * Makes {@code volume/} of {@code runtimeDirectory} the runtime's own filesystem: creates the
   * image when there is none, mounts it when it is not mounted (again, when a dead fuse2fs left its
   * mount behind). Idempotent.
   *
   * @param capBytes what the session may write
   * @param reserveBytes room beyond the cap that only root may fill (the node's own writes); at
   *     most {@code capBytes}, and ignored where the node is not root
   * @throws IOException when the image cannot be made or mounted
   */
  public Path attach(Path runtimeDirectory, long capBytes, long reserveBytes) throws IOException {
    Path volume = volume(runtimeDirectory);
    if (kind() == Kind.NONE || !mounted(volume)) {
      Files.createDirectories(volume);
    }
    Path image = image(runtimeDirectory);
    if (kind() == Kind.NONE) {
      return plainVolume(runtimeDirectory, volume, image);
    }
    if (mounted(volume)) {
      if (readable(volume)) {
        return volume;
      }
      LOG.warn("the filesystem at {} no longer answers; mounting its image again", volume);
      images.unmount(volume, true);
    }
    if (!Files.exists(image, LinkOption.NOFOLLOW_LINKS) && !empty(volume)) {
      // Made without a cap (a node that could not mount images, or an earlier version): mounting
      // a new image over it would hide the session's files. It stays a plain directory.
      return volume;
    }
    if (!Files.exists(image, LinkOption.NOFOLLOW_LINKS)) {
      makeImage(runtimeDirectory, capBytes, reserveBytes);
    }
    images.mount(image, volume);
    Files.setPosixFilePermissions(volume, PosixFilePermissions.fromString("rwx------"));
    return volume;
  }

  /** The volume of a node that cannot mount images, unless the runtime's state is in one. */
  private static Path plainVolume(Path runtimeDirectory, Path volume, Path image)
      throws IOException {
    if (Files.exists(image, LinkOption.NOFOLLOW_LINKS)) {
      // Serving the empty directory under it would show the session a home without its files.
      throw new IOException(
          "runtime "
              + runtimeDirectory.getFileName()
              + " keeps its state in "
              + image
              + ", but this node cannot mount disk images (see the isolation report); install"
              + " what the report names, or run the node as root, and restart it");
    }
    return volume;
  }

  /** Formats the runtime's image for {@code capBytes} and records the cap beside it. */
  private void makeImage(Path runtimeDirectory, long capBytes, long reserveBytes)
      throws IOException {
    images.format(
        image(runtimeDirectory),
        capBytes,
        kind() == Kind.LOOP ? Math.min(reserveBytes, capBytes) : 0);
    try (var channel =
        PrivateFiles.open(
            capFile(runtimeDirectory),
            StandardOpenOption.CREATE,
            StandardOpenOption.TRUNCATE_EXISTING,
            StandardOpenOption.WRITE)) {
      channel.write(ByteBuffer.wrap(Long.toString(capBytes).getBytes(StandardCharsets.UTF_8)));
    }
  }

  /** Unmounts the runtime's filesystem, lazily when it is busy; the image stays. */
  public void detach(Path runtimeDirectory) throws IOException {
    Path volume = volume(runtimeDirectory);
    if (kind() == Kind.NONE || !mounted(volume)) {
      return;
    }
    try {
      images.unmount(volume, false);
    } catch (IOException busy) {
      // An output log closed a moment ago, a process not yet reaped: detach it now, free it later.
      images.unmount(volume, true);
      if (kind() == Kind.FUSE) {
        // A lazily detached fuse2fs would go on serving the image after the next node mounted it
        // again; nothing of the runtime runs any more, so nothing still needs it.
        FuseDaemons.endServing(image(runtimeDirectory));
      }
    }
  }

  /** Whether the runtime's state is on an image of its own, so that its cap holds. */
  public boolean enforced(Path runtimeDirectory) {
    try {
      return kind() != Kind.NONE && mounted(volume(runtimeDirectory));
    } catch (IOException e) {
      return false;
    }
  }

  /** Like {@link #detach} for a close, where nothing can be done about a failure but log it. */
  public void detachQuietly(Path runtimeDirectory) {
    try {
      detach(runtimeDirectory);
    } catch (IOException | RuntimeException e) {
      LOG.warn("cannot unmount {}: {}", volume(runtimeDirectory), e.getMessage());
    }
  }

  /**
   * What the runtime's state takes against its cap: the one its image was made for, else {@code
   * configuredCap}.
   */
  public Usage usage(Path runtimeDirectory, long configuredCap) {
    Path volume = volume(runtimeDirectory);
    long capBytes = capOf(runtimeDirectory, configuredCap);
    try {
      // A hosted runtime with an image has it mounted (attach made sure, or the runtime is not
      // hosted): no read of the mount table on every status call.
      if (kind() != Kind.NONE && Files.exists(image(runtimeDirectory), LinkOption.NOFOLLOW_LINKS)) {
        long available = Math.min(capBytes, Files.getFileStore(volume).getUsableSpace());
        return new Usage(capBytes, capBytes - available, available, true);
      }
      long used = sizeOf(volume);
      return new Usage(capBytes, used, Math.max(0, capBytes - used), false);
    } catch (IOException | UncheckedIOException e) {
      return new Usage(capBytes, 0, 0, kind() != Kind.NONE);
    }
  }

  /** Whether {@code volume} is a mount point in this process's mount namespace. */
  public static boolean mounted(Path volume) throws IOException {
    return MountTable.mounted(volume);
  }

  private static boolean empty(Path directory) throws IOException {
    try (Stream<Path> entries = Files.list(directory)) {
      return entries.findFirst().isEmpty();
    }
  }

  private static boolean readable(Path volume) {
    try (Stream<Path> entries = Files.list(volume)) {
      var unused = entries.findFirst(); // reading the first entry is the test
      return true;
    } catch (IOException | UncheckedIOException e) {
      return false;
    }
  }

  private static long sizeOf(Path root) throws IOException {
    if (!Files.isDirectory(root, LinkOption.NOFOLLOW_LINKS)) {
      return 0;
    }
    try (Stream<Path> paths = Files.walk(root)) {
      return paths
          .filter(p -> Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS))
          .mapToLong(StateDisks::sizeOrZero)
          .sum();
    }
  }

  private static long sizeOrZero(Path file) {
    try {
      return Files.size(file);
    } catch (IOException e) {
      // Deleted while walking: it takes nothing any more.
      return 0;
    }
  }
}
