package dev.berth.agent.isolation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * One contract for every way a node mounts a runtime's disk, run against each: the loop mount of a
 * root node and the fuse2fs mount of an unprivileged one (both work on a root test host), and the
 * plain directory of a host with neither. A missing tool fails naming its package; the suite runs
 * as root ({@code make test} installs e2fsprogs, fuse2fs and fuse3).
 */
class StateDisksTest {
  private static final long MIB = 1024 * 1024;

  @TempDir Path runtime;
  private StateDisks disks;

  @AfterEach
  void unmount() {
    if (disks != null) {
      disks.detachQuietly(runtime);
    }
  }

  private StateDisks disks(StateDisks.Kind kind) {
    assertThat(Path.of("/proc/self/status"))
        .as("the disk tests run as root (make test does)")
        .content()
        .containsPattern("Uid:\\s+0\\s");
    disks =
        StateDisks.of(kind, 0, 0)
            .orElseThrow(
                () ->
                    new AssertionError(
                        kind
                            + " disks need e2fsprogs"
                            + (kind == StateDisks.Kind.FUSE
                                ? ", fuse2fs and fuse3, and a writable /dev/fuse"
                                : " and util-linux's mount")
                            + " (bin/ensure-test-tools installs them)"));
    return disks;
  }

  @ParameterizedTest
  @EnumSource(names = {"LOOP", "FUSE"})
  void aWriteBeyondTheCapFailsWithNoSpaceLeftAndTheUsageShowsTheCapTaken(StateDisks.Kind kind)
      throws IOException {
    Path volume = disks(kind).attach(runtime, 32 * MIB, 0);

    long written = 0;
    IOException refused = null;
    try (OutputStream out = Files.newOutputStream(volume.resolve("fill"))) {
      byte[] chunk = new byte[(int) MIB];
      while (written < 64 * MIB) {
        out.write(chunk);
        out.flush();
        written += chunk.length;
      }
    } catch (IOException e) {
      refused = e;
    }

    assertThat(refused).as("a write past 32 MiB").isNotNull();
    assertThat(refused.getMessage()).contains("No space left on device");
    assertThat(written).isBetween(16 * MIB, 32 * MIB);
    StateDisks.Usage usage = disks.usage(runtime, 99 * MIB);
    assertThat(usage.enforced()).isTrue();
    assertThat(usage.capBytes()).as("the cap the image was made for").isEqualTo(32 * MIB);
    assertThat(usage.availableBytes()).isLessThan(2 * MIB);
    assertThat(usage.usedBytes()).isEqualTo(usage.capBytes() - usage.availableBytes());
  }

  @ParameterizedTest
  @EnumSource(names = {"LOOP", "FUSE"})
  void aDetachedDiskKeepsItsFilesAndAttachesAgain(StateDisks.Kind kind) throws IOException {
    Path volume = disks(kind).attach(runtime, 32 * MIB, 0);
    Files.writeString(volume.resolve("kept"), "still here");
    assertThat(StateDisks.mounted(volume)).isTrue();

    disks.detach(runtime);
    assertThat(StateDisks.mounted(volume)).isFalse();
    assertThat(volume.resolve("kept")).as("hidden with the image unmounted").doesNotExist();
    disks.attach(runtime, 32 * MIB, 0);
    disks.attach(runtime, 32 * MIB, 0);

    assertThat(volume.resolve("kept")).hasContent("still here");
    assertThat(Files.getPosixFilePermissions(volume))
        .as("the mount's root is the node's alone")
        .hasToString("[OWNER_READ, OWNER_WRITE, OWNER_EXECUTE]");
  }

  @ParameterizedTest
  @EnumSource(names = {"LOOP", "FUSE"})
  void aDirectoryThatAlreadyHoldsFilesIsNeverMountedOver(StateDisks.Kind kind) throws IOException {
    Path volume = StateDisks.volume(runtime);
    Files.createDirectories(volume.resolve("state"));
    Files.writeString(volume.resolve("state/home-file"), "made without a cap");

    disks(kind).attach(runtime, 32 * MIB, 0);

    assertThat(StateDisks.mounted(volume)).isFalse();
    assertThat(volume.resolve("state/home-file")).hasContent("made without a cap");
    assertThat(disks.usage(runtime, 32 * MIB).enforced()).isFalse();
  }

  @Test
  void onALoopDiskOnlyRootWritesIntoTheReserveSoTheNodeKeepsRecordingOutput() throws Exception {
    Path volume = disks(StateDisks.Kind.LOOP).attach(runtime, 32 * MIB, 16 * MIB);
    Path session = Files.createDirectories(volume.resolve("session"));
    Files.setAttribute(session, "unix:uid", 65534);
    // A root node's sessions reach their directories through binds; this one walks the path.
    for (Path walked : List.of(runtime, volume)) {
      Files.setPosixFilePermissions(
          walked, java.nio.file.attribute.PosixFilePermissions.fromString("rwx--x--x"));
    }

    Process fill =
        new ProcessBuilder(
                "setpriv",
                "--reuid=65534",
                "--regid=65534",
                "--clear-groups",
                "dd",
                "if=/dev/zero",
                "of=" + session.resolve("fill"),
                "bs=1M",
                "count=64")
            .redirectErrorStream(true)
            .start();
    String said = new String(fill.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(fill.waitFor(30, TimeUnit.SECONDS)).isTrue();

    assertThat(fill.exitValue()).as(said).isNotZero();
    assertThat(said).contains("No space left on device");
    assertThat(Files.size(session.resolve("fill"))).isLessThanOrEqualTo(32 * MIB);
    Files.write(volume.resolve("output-of-the-node"), new byte[(int) (8 * MIB)]);
    assertThat(Files.size(volume.resolve("output-of-the-node"))).isEqualTo(8 * MIB);
  }

  @Test
  @SuppressWarnings("StreamResourceLeak") // Files.list(volume).close(): the listing is closed
  void aFuseDiskWhoseDaemonDiedIsMountedAgainWithItsFiles() throws Exception {
    Path volume = disks(StateDisks.Kind.FUSE).attach(runtime, 32 * MIB, 0);
    Files.writeString(volume.resolve("kept"), "synced before the crash");
    new ProcessBuilder("sync").start().waitFor();
    List<ProcessHandle> daemons = daemonsServing(runtime);
    assertThat(daemons).hasSize(1);
    daemons.get(0).destroyForcibly();
    daemons.get(0).onExit().get(10, TimeUnit.SECONDS);
    assertThatThrownBy(() -> Files.list(volume).close()).isInstanceOf(IOException.class);

    disks.attach(runtime, 32 * MIB, 0);

    assertThat(volume.resolve("kept")).hasContent("synced before the crash");
  }

  @Test
  void aFuseDaemonThatALazyUnmountLeftServingIsEndedBeforeTheImageIsMountedAgain()
      throws Exception {
    Path volume = disks(StateDisks.Kind.FUSE).attach(runtime, 32 * MIB, 0);
    Files.writeString(volume.resolve("kept"), "one writer at a time");
    try (var held = Files.newByteChannel(volume.resolve("kept"))) {
      assertThat(new ProcessBuilder("umount", "-l", volume.toString()).start().waitFor()).isZero();
      assertThat(daemonsServing(runtime)).as("the held file keeps the daemon").hasSize(1);

      disks.attach(runtime, 32 * MIB, 0);

      assertThat(daemonsServing(runtime)).as("one daemon, the new one").hasSize(1);
      assertThat(held.isOpen()).isTrue();
    }
    assertThat(volume.resolve("kept")).hasContent("one writer at a time");
  }

  @Test
  void aNodeThatCannotMountImagesRefusesARuntimeWhoseStateIsInOne() throws IOException {
    disks(StateDisks.Kind.LOOP).attach(runtime, 32 * MIB, 0);
    disks.detach(runtime);

    assertThatThrownBy(() -> StateDisks.none().attach(runtime, 32 * MIB, 0))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("this node cannot mount disk images");
  }

  private static List<ProcessHandle> daemonsServing(Path runtime) {
    String image = runtime.resolve("volume.img").toString();
    return ProcessHandle.allProcesses()
        .filter(
            p -> p.info().arguments().map(a -> a.length > 0 && a[0].equals(image)).orElse(false))
        .filter(ProcessHandle::isAlive)
        .toList();
  }

  @Test
  void withoutImagesTheCapIsMeasuredFromTheFilesAndNotEnforced() throws IOException {
    StateDisks none = StateDisks.none();
    Path volume = none.attach(runtime, 32 * MIB, 0);
    Files.createDirectories(volume.resolve("state/home"));
    Files.write(volume.resolve("state/home/a"), new byte[(int) MIB]);
    Files.write(volume.resolve("state/b"), new byte[1000]);

    StateDisks.Usage usage = none.usage(runtime, 32 * MIB);

    assertThat(usage).isEqualTo(new StateDisks.Usage(32 * MIB, MIB + 1000, 31 * MIB - 1000, false));
    assertThat(StateDisks.mounted(volume)).isFalse();
  }
}
