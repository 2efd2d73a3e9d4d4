package dev.berth.agent.archive;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.RandomAccessFile;
import java.lang.management.ManagementFactory;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What goes in comes out: a runtime directory written and restored byte for byte. */
class ArchiveRoundTripTest {
  private static final ArchiveIdentity IDENTITY =
      new ArchiveIdentity("s-round-trip", 3, Instant.parse("2026-11-29T12:00:00Z"));

  @TempDir Path base;
  private Path source;
  private Path archive;

  @BeforeEach
  void aRuntimeDirectory() throws IOException {
    source = Files.createDirectories(base.resolve("source"));
    archive = base.resolve("state.tar.zst");
    dir("home", "rwxr-xr-x");
    dir("home/empty-dir", "rwx------");
    file("home/empty-file", new byte[0], "rw-r--r--");
    file("home/binary.bin", TarBuilder.noise(4099, 1), "rw-------");
    file("home/script.sh", "#!/bin/sh\necho hi\n".getBytes(UTF_8), "rwxr-xr-x");
    dir("home/nested", "rwxr-x---");
    dir("home/nested/a", "rwxr-xr-x");
    dir("home/nested/a/b", "rwxr-xr-x");
    file("home/nested/a/b/deep.txt", "deep\n".getBytes(UTF_8), "r--r--r--");
    dir("home/\u00fcn\u00efc\u00f8d\u00e9", "rwxr-xr-x");
    file(
        "home/\u00fcn\u00efc\u00f8d\u00e9/\u65e5\u672c\u8a9e.txt",
        "\u3053\u3093\u306b\u3061\u306f\n".getBytes(UTF_8),
        "rw-r--r--");
    file("home/big.bin", TarBuilder.noise(20 << 20, 2), "rw-r-----");
    Files.createSymbolicLink(source.resolve("home/link-to-file"), Path.of("script.sh"));
    Files.createSymbolicLink(source.resolve("home/link-to-dir"), Path.of("nested/a"));
    Files.createSymbolicLink(source.resolve("home/dangling"), Path.of("does-not-exist"));
    Files.createSymbolicLink(source.resolve("home/nested/a/up"), Path.of("../../empty-file"));
    dir("output", "rwxr-xr-x");
    file("output/log", "line 1\nline 2\n".getBytes(UTF_8), "rw-r--r--");
    dir("home/readonly", "rwxr-xr-x");
    file("home/readonly/fixed.txt", "fixed\n".getBytes(UTF_8), "r--r--r--");
    Files.setPosixFilePermissions(
        source.resolve("home/readonly"), PosixFilePermissions.fromString("r-xr-xr-x"));
  }

  @Test
  void aRestoredTreeIsByteIdenticalIncludingModesAndSymlinks() throws IOException {
    ArchiveSummary summary = write(path -> false);
    Path target = base.resolve("restored");

    Manifest manifest = restore(target);

    assertThat(belowRoot(target)).isEqualTo(belowRoot(source));
    assertThat(Files.getPosixFilePermissions(target))
        .as("a new root is private; the archive holds no mode for it")
        .isEqualTo(PosixFilePermissions.fromString("rwx------"));
    assertThat(manifest.identity()).isEqualTo(IDENTITY);
    assertThat(manifest.digest()).isEqualTo(summary.digest());
    assertThat(manifest.totalBytes()).isEqualTo(summary.totalBytes()).isGreaterThan(20 << 20);
    assertThat(manifest.files()).hasSize((int) summary.files());
    assertThat(summary.skipped()).isEmpty();
  }

  @Test
  void restoringOverAnExistingTreeReplacesItWholeAndLeavesNothingBeside() throws IOException {
    write(path -> false);
    Path target = Files.createDirectories(base.resolve("runtime/state"));
    Files.setPosixFilePermissions(target, PosixFilePermissions.fromString("rwxr-x---"));
    Files.writeString(Files.createDirectories(target.resolve("home")).resolve("stale.txt"), "old");
    Files.writeString(target.resolve("old-only"), "old");

    restore(target);

    assertThat(belowRoot(target)).isEqualTo(belowRoot(source));
    assertThat(Files.getPosixFilePermissions(target))
        .as("an existing root keeps its mode")
        .isEqualTo(PosixFilePermissions.fromString("rwxr-x---"));
    try (var siblings = Files.list(target.getParent())) {
      assertThat(siblings).containsExactly(target);
    }
  }

  @Test
  void lockFilesExcludedPathsAndSpecialFilesStayOutTheSpecialOnesAreListedAndAbsoluteHomeLinksStay()
      throws Exception {
    dir("shell-state", "rwxr-xr-x");
    file("shell-state/shell.lock", "1".getBytes(UTF_8), "rw-r--r--");
    file("shell-state/env", "X=1\n".getBytes(UTF_8), "rw-r--r--");
    dir("home/.cache", "rwxr-xr-x");
    file("home/.cache/blob", "cache".getBytes(UTF_8), "rw-r--r--");
    Files.createSymbolicLink(source.resolve("home/python"), Path.of("/usr/bin/python3"));
    Files.createSymbolicLink(source.resolve("home/escape"), Path.of("../../outside"));
    Files.createSymbolicLink(source.resolve("home/through"), Path.of("link-to-dir/b/deep.txt"));
    mkfifo(source.resolve("home/pipe"));
    try (ServerSocketChannel socket = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
      socket.bind(UnixDomainSocketAddress.of(source.resolve("home/agent.sock")));
      Files.writeString(source.resolve(ArchiveFormat.MANIFEST_NAME), "{}");

      ArchiveSummary summary = write(path -> path.equals("home/.cache"));

      assertThat(summary.skipped())
          .extracting(line -> line.substring(0, line.indexOf(':')))
          .containsExactlyInAnyOrder(
              "home/agent.sock",
              "home/pipe",
              "home/escape",
              "home/through",
              ArchiveFormat.MANIFEST_NAME);
      assertThat(summary.skipped()).anyMatch(l -> l.startsWith("home/agent.sock: socket"));
      assertThat(summary.skipped()).anyMatch(l -> l.startsWith("home/pipe: fifo"));
    }
    Path target = base.resolve("restored");
    Manifest manifest = restore(target);
    assertThat(manifest.files())
        .extracting(ManifestEntry::path)
        .contains("shell-state/env", "home/link-to-dir", "home/python")
        .doesNotContain("shell-state/shell.lock", "home/.cache", "home/.cache/blob");
    assertThat(target.resolve("home/.cache")).doesNotExist();
    // An absolute link in the home is kept as a link, never followed (a venv's bin/python3).
    assertThat(Files.readSymbolicLink(target.resolve("home/python")))
        .isEqualTo(Path.of("/usr/bin/python3"));
  }

  @Test
  void worldWriteIsDroppedWhenWritingSoThatTheArchiveRestores() throws IOException {
    file("home/shared.txt", "x".getBytes(UTF_8), "rw-rw-rw-");
    write(path -> false);
    Path target = base.resolve("restored");

    restore(target);

    assertThat(Files.getPosixFilePermissions(target.resolve("home/shared.txt")))
        .isEqualTo(PosixFilePermissions.fromString("rw-rw-r--"));
  }

  @Test
  void gnuTarListsAndExtractsTheArchiveWithoutWarnings() throws Exception {
    assertThat(commandExists("tar") && commandExists("zstd"))
        .as("GNU tar and zstd (Debian packages tar and zstd; bin/ensure-test-tools installs them)")
        .isTrue();
    write(path -> false);

    Result list = run("tar", "--zstd", "-tvf", archive.toString());
    assertThat(list.exit()).isZero();
    assertThat(list.stderr()).isEmpty();
    assertThat(list.stdout())
        .contains("home/\u00fcn\u00efc\u00f8d\u00e9/\u65e5\u672c\u8a9e.txt")
        .contains("home/link-to-dir -> nested/a")
        .contains(ArchiveFormat.MANIFEST_NAME);

    Path extracted = Files.createDirectories(base.resolve("gnu"));
    Result x = run("tar", "--zstd", "-xpf", archive.toString(), "-C", extracted.toString());
    assertThat(x.exit()).isZero();
    assertThat(x.stderr()).isEmpty();
    Files.delete(extracted.resolve(ArchiveFormat.MANIFEST_NAME));
    assertThat(belowRoot(extracted)).isEqualTo(belowRoot(source));
  }

  @Test
  void theWriterStreamsInsteadOfHoldingTheArchive() throws IOException {
    Path big = Files.createDirectories(base.resolve("sparse"));
    try (RandomAccessFile f = new RandomAccessFile(big.resolve("disk.img").toFile(), "rw")) {
      f.setLength(200L << 20);
      f.seek(100L << 20);
      f.write(TarBuilder.noise(1 << 20, 3));
    }
    CountingSink sink = new CountingSink();
    var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    long allocatedBefore = threads.getCurrentThreadAllocatedBytes();

    ArchiveSummary summary = ArchiveWriter.write(big, IDENTITY, sink);

    long allocated = threads.getCurrentThreadAllocatedBytes() - allocatedBefore;
    assertThat(summary.totalBytes()).isEqualTo(200L << 20);
    assertThat(sink.bytes).isGreaterThan(1 << 20);
    assertThat(sink.largestWrite).isLessThanOrEqualTo(1 << 20);
    assertThat(allocated).as("heap allocated while archiving 200 MiB").isLessThan(32L << 20);
  }

  /** The tree without its root directory, whose mode the archive does not carry. */
  private static Map<String, String> belowRoot(Path root) {
    Map<String, String> tree = new TreeMap<>(TreeDigest.of(root));
    tree.remove("");
    return tree;
  }

  private ArchiveSummary write(java.util.function.Predicate<String> exclude) throws IOException {
    try (OutputStream out = Files.newOutputStream(archive)) {
      return ArchiveWriter.write(source, IDENTITY, exclude, out);
    }
  }

  private Manifest restore(Path target) throws IOException {
    try (InputStream in = Files.newInputStream(archive)) {
      return ArchiveRestorer.restore(in, target, IDENTITY, ArchiveLimits.defaults());
    }
  }

  private void dir(String path, String perms) throws IOException {
    Path dir = Files.createDirectories(source.resolve(path));
    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString(perms));
  }

  private void file(String path, byte[] content, String perms) throws IOException {
    Path file = Files.write(source.resolve(path), content);
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString(perms));
  }

  private static void mkfifo(Path path) throws Exception {
    assertThat(run("mkfifo", path.toString()).exit()).isZero();
  }

  private static boolean commandExists(String name) throws Exception {
    return run("sh", "-c", "command -v " + name).exit() == 0;
  }

  record Result(int exit, String stdout, String stderr) {}

  private static Result run(String... command) throws Exception {
    Process p = new ProcessBuilder(List.of(command)).start();
    p.getOutputStream().close();
    String out = new String(p.getInputStream().readAllBytes(), UTF_8);
    String err = new String(p.getErrorStream().readAllBytes(), UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    return new Result(p.exitValue(), out, err);
  }

  /** Counts what the writer emits, and the largest single write, without keeping any of it. */
  private static final class CountingSink extends OutputStream {
    long bytes;
    long largestWrite;

    @Override
    public void write(int b) {
      bytes++;
    }

    @Override
    public void write(byte[] b, int off, int len) {
      bytes += len;
      largestWrite = Math.max(largestWrite, len);
    }
  }
}
