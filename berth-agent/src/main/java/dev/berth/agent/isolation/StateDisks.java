package dev.berth.agent.isolation;

import dev.berth.protocol.files.PrivateFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
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
  private static final long MIB = 1024L * 1024;
  private static final long PROBE_BYTES = 16 * MIB;
  private static final long COMMAND_SECONDS = 30;
  private static volatile Optional<StateDisks> detected = Optional.empty();

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

  private final Kind kind;
  private final String mkfs;
  private final String mounter;
  private final String unmounter;
  private final long uid;
  private final long gid;

  private StateDisks(Kind kind, String mkfs, String mounter, String unmounter, long uid, long gid) {
    this.kind = kind;
    this.mkfs = mkfs;
    this.mounter = mounter;
    this.unmounter = unmounter;
    this.uid = uid;
    this.gid = gid;
  }

  /** No images: {@code volume/} is a plain directory and the cap is only measured. */
  public static StateDisks none() {
    return new StateDisks(Kind.NONE, "", "", "", -1, -1);
  }

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
      return none();
    }
    List<StateDisks> candidates = new ArrayList<>();
    if (root) {
      of(Kind.LOOP, uid, gid).ifPresent(candidates::add);
    }
    of(Kind.FUSE, uid, gid).ifPresent(candidates::add);
    for (StateDisks candidate : candidates) {
      Path probe;
      try {
        // A fresh name of its own, 0700: another user of a shared /tmp cannot have placed a link
        // or an image of theirs where a root node is about to mount.
        probe = Files.createTempDirectory(scratch, "berth-disk-probe-");
      } catch (IOException e) {
        LOG.info("session disks: cannot make a probe directory in {}: {}", scratch, e.getMessage());
        return none();
      }
      try {
        candidate.attach(probe, PROBE_BYTES, 0);
        Files.createDirectories(volume(probe).resolve("state"));
        candidate.detach(probe);
        return candidate;
      } catch (IOException | RuntimeException e) {
        LOG.info("session disks: {} mounts do not work here: {}", candidate.kind, e.getMessage());
        candidate.detachQuietly(probe);
      } finally {
        ScratchDirectories.delete(probe);
      }
    }
    LOG.info(
        "session disk caps are measured, not enforced: {}",
        root
            ? "neither loop mounts nor fuse2fs work here"
            : "fuse2fs (package fuse2fs) with fusermount3 (fuse3) and a writable /dev/fuse are"
                + " needed on a node that is not root");
    return none();
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
            ? Optional.of(new StateDisks(kind, mkfs.get(), mount.get(), umount.get(), uid, gid))
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
                new StateDisks(kind, mkfs.get(), fuse2fs.get(), fusermount.get(), uid, gid))
            : Optional.empty();
      }
    };
  }

  public Kind kind() {
    return kind;
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
    if (kind == Kind.NONE || !mounted(volume)) {
      Files.createDirectories(volume);
    }
    Path image = image(runtimeDirectory);
    if (kind == Kind.NONE) {
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
    if (mounted(volume)) {
      if (readable(volume)) {
        return volume;
      }
      LOG.warn("the filesystem at {} no longer answers; mounting its image again", volume);
      unmount(volume, true);
    }
    if (!Files.exists(image, LinkOption.NOFOLLOW_LINKS) && !empty(volume)) {
      // Made without a cap (a node that could not mount images, or an earlier version): mounting
      // a new image over it would hide the session's files. It stays a plain directory.
      return volume;
    }
    if (!Files.exists(image, LinkOption.NOFOLLOW_LINKS)) {
      format(image, capBytes, kind == Kind.LOOP ? Math.min(reserveBytes, capBytes) : 0);
      try (var channel =
          PrivateFiles.open(
              capFile(runtimeDirectory),
              StandardOpenOption.CREATE,
              StandardOpenOption.TRUNCATE_EXISTING,
              StandardOpenOption.WRITE)) {
        channel.write(
            java.nio.ByteBuffer.wrap(Long.toString(capBytes).getBytes(StandardCharsets.UTF_8)));
      }
    }
    if (kind == Kind.FUSE) {
      prepareFuseMount(image);
    }
    String said =
        kind == Kind.LOOP
            ? run(
                List.of(
                    mounter,
                    "-o",
                    // discard: what the session deletes is given back to the host's disk.
                    "loop,nosuid,nodev,noatime,discard",
                    image.toString(),
                    volume.toString()))
            : run(fuseMount(image, volume));
    try {
      awaitMounted(volume, said);
    } catch (IOException e) {
      if (kind == Kind.FUSE) {
        // A daemon that mounts after all, later, must not serve an image nobody tracks.
        endDaemonsOf(image);
      }
      throw e;
    }
    Files.setPosixFilePermissions(volume, PosixFilePermissions.fromString("rwx------"));
    return volume;
  }

  /** Unmounts the runtime's filesystem, lazily when it is busy; the image stays. */
  public void detach(Path runtimeDirectory) throws IOException {
    Path volume = volume(runtimeDirectory);
    if (kind == Kind.NONE || !mounted(volume)) {
      return;
    }
    try {
      unmount(volume, false);
    } catch (IOException busy) {
      // An output log closed a moment ago, a process not yet reaped: detach it now, free it later.
      unmount(volume, true);
      if (kind == Kind.FUSE) {
        // A lazily detached fuse2fs would go on serving the image after the next node mounted it
        // again; nothing of the runtime runs any more, so nothing still needs it.
        endDaemonsOf(image(runtimeDirectory));
      }
    }
  }

  /** Whether the runtime's state is on an image of its own, so that its cap holds. */
  public boolean enforced(Path runtimeDirectory) {
    try {
      return kind != Kind.NONE && mounted(volume(runtimeDirectory));
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
      if (kind != Kind.NONE && Files.exists(image(runtimeDirectory), LinkOption.NOFOLLOW_LINKS)) {
        long available = Math.min(capBytes, Files.getFileStore(volume).getUsableSpace());
        return new Usage(capBytes, capBytes - available, available, true);
      }
      long used = sizeOf(volume);
      return new Usage(capBytes, used, Math.max(0, capBytes - used), false);
    } catch (IOException | UncheckedIOException e) {
      return new Usage(capBytes, 0, 0, kind != Kind.NONE);
    }
  }

  /**
   * fuse2fs answers 0 once it forked its daemon, before fusermount3 mounted anything: a mount that
   * fails (fusermount3 without its setuid, under no_new_privs, say) is seen only as no mount.
   */
  private void awaitMounted(Path volume, String said) throws IOException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (!mounted(volume)) {
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
  private void prepareFuseMount(Path image) throws IOException {
    endDaemonsOf(image);
    SandboxTools.which("e2fsck")
        .ifPresent(
            e2fsck -> {
              try {
                run(List.of(e2fsck, "-p", image.toString()));
              } catch (IOException e) {
                // Exit 1 (errors corrected) is success for a preen; anything worse is logged
                // and the mount tried: fuse2fs refuses what it cannot read.
                LOG.warn("e2fsck -p {}: {}", image, e.getMessage());
              }
            });
  }

  private void endDaemonsOf(Path image) {
    String served = image.toString();
    List<ProcessHandle> daemons =
        ProcessHandle.allProcesses()
            .filter(
                p ->
                    p.info()
                        .arguments()
                        .map(args -> args.length > 0 && args[0].equals(served))
                        .orElse(false))
            .filter(p -> p.info().command().map(c -> c.endsWith("fuse2fs")).orElse(false))
            .toList();
    for (ProcessHandle daemon : daemons) {
      LOG.warn("ending fuse2fs {} that still serves {}", daemon.pid(), image);
      daemon.destroy();
      try {
        daemon.onExit().get(5, TimeUnit.SECONDS);
      } catch (java.util.concurrent.TimeoutException e) {
        daemon.destroyForcibly();
      } catch (java.util.concurrent.ExecutionException e) {
        continue;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  private void format(Path image, long capBytes, long reserveBytes) throws IOException {
    long size = capBytes + reserveBytes;
    // Sparse: the host's disk holds only the blocks written.
    try (var channel =
        PrivateFiles.open(image, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
      channel.position(size - 1);
      channel.write(java.nio.ByteBuffer.wrap(new byte[1]));
    }
    double reservePercent = 100.0 * reserveBytes / size;
    try {
      run(
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

  private void unmount(Path volume, boolean lazy) throws IOException {
    if (kind == Kind.LOOP) {
      run(
          lazy
              ? List.of(unmounter, "-l", volume.toString())
              : List.of(unmounter, volume.toString()));
    } else {
      run(
          lazy
              ? List.of(unmounter, "-u", "-z", volume.toString())
              : List.of(unmounter, "-u", volume.toString()));
    }
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

  /** Whether {@code volume} is a mount point in this process's mount namespace. */
  public static boolean mounted(Path volume) throws IOException {
    Path parent = volume.toAbsolutePath().getParent();
    if (parent == null || !Files.isDirectory(parent)) {
      return false;
    }
    String wanted = parent.toRealPath().resolve(volume.getFileName()).toString();
    for (String line : Files.readAllLines(Path.of("/proc/self/mountinfo"))) {
      String[] fields = line.split(" ");
      if (fields.length > 4 && unescape(fields[4]).equals(wanted)) {
        return true;
      }
    }
    return false;
  }

  /** mountinfo writes space, tab, newline and backslash as three octal digits after a backslash. */
  private static String unescape(String field) {
    StringBuilder out = new StringBuilder(field.length());
    for (int i = 0; i < field.length(); i++) {
      char c = field.charAt(i);
      if (c == '\\' && i + 3 < field.length()) {
        try {
          out.append((char) Integer.parseInt(field.substring(i + 1, i + 4), 8));
          i += 3;
          continue;
        } catch (NumberFormatException e) {
          // Not an escape: kept as it is.
        }
      }
      out.append(c);
    }
    return out.toString();
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

  /** Runs {@code argv} to its end and returns what it said; a failure says it in the exception. */
  private static String run(List<String> argv) throws IOException {
    // A file, not a pipe: fuse2fs's daemon would hold a pipe open for as long as it serves.
    Path said = Files.createTempFile("berth-disk-", ".out");
    try {
      Process process =
          new ProcessBuilder(argv)
              .redirectErrorStream(true)
              .redirectOutput(said.toFile())
              .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
              .start();
      boolean done;
      try {
        done = process.waitFor(COMMAND_SECONDS, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        process.destroyForcibly();
        Thread.currentThread().interrupt();
        throw new IOException(argv.get(0) + " was interrupted", e);
      }
      if (!done) {
        process.destroyForcibly();
        throw new IOException(
            String.join(" ", argv) + " did not finish in " + COMMAND_SECONDS + "s");
      }
      if (process.exitValue() != 0) {
        String output = new String(Files.readAllBytes(said), StandardCharsets.UTF_8).trim();
        throw new IOException(
            String.join(" ", argv)
                + " failed (exit "
                + process.exitValue()
                + "): "
                + output.substring(0, Math.min(output.length(), 2000)));
      }
      String output = new String(Files.readAllBytes(said), StandardCharsets.UTF_8);
      return output.substring(0, Math.min(output.length(), 2000));
    } finally {
      Files.deleteIfExists(said);
    }
  }
}
