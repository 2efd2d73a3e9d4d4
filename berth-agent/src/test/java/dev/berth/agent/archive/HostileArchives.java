package dev.berth.agent.archive;

import static java.nio.charset.StandardCharsets.UTF_8;

import com.github.luben.zstd.ZstdOutputStreamNoFinalizer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.text.Normalizer;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.function.Supplier;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarConstants;

/**
 * The hostile corpus: one archive per attack or defect, each with the violation a restore must
 * report and the limits to restore it with. The committed files under {@link #DIRECTORY} are the
 * output of {@link #cases()}; {@code HostileArchivesTest} checks that they stay in step, and
 * regenerates them when run with {@code -Dberth.archives.regenerate=true}.
 *
 * <p>Escapes aim at {@code /tmp/berth-hostile-pwned}, at {@code /etc}, or (relative) at the
 * target's parent directory, which the test watches.
 */
final class HostileArchives {
  static final Path DIRECTORY = Path.of("src/test/resources/archives/hostile");
  static final String PWNED = "berth-hostile-pwned";

  /** One hostile archive: its file name (without {@code .tar.zst}) and what a restore must say. */
  record Case(String name, Violation violation, ArchiveLimits limits, Supplier<byte[]> bytes) {
    @Override
    public String toString() {
      return name;
    }
  }

  private HostileArchives() {}

  static List<Case> cases() {
    return List.of(
        hostile("absolute-path", Violation.ABSOLUTE_PATH, () -> raw("/tmp/" + PWNED).manifest()),
        hostile(
            "dotdot-traversal",
            Violation.PARENT_SEGMENT,
            () -> new TarBuilder().file("../" + PWNED, "x").manifest()),
        hostile(
            "nested-dotdot",
            Violation.PARENT_SEGMENT,
            () -> new TarBuilder().dir("a").file("a/../../" + PWNED, "x").manifest()),
        hostile(
            "symlink-to-etc",
            Violation.LINK_ESCAPES,
            () -> new TarBuilder().symlink("etc", "/etc").manifest()),
        hostile(
            "symlink-escaping-dotdot",
            Violation.LINK_ESCAPES,
            () -> new TarBuilder().dir("a").symlink("a/up", "../..").manifest()),
        hostile(
            "symlink-to-root-itself",
            Violation.LINK_ESCAPES,
            () -> new TarBuilder().symlink("self", ".").manifest()),
        hostile(
            "symlink-chain-escape",
            Violation.LINK_ESCAPES,
            () ->
                new TarBuilder()
                    .dir("a")
                    .dir("a/b")
                    .symlink("a/b/l1", "..")
                    .symlink("l2", "a/b/l1/../..")
                    .manifest()),
        hostile(
            "symlink-chain-forward-reference",
            Violation.LINK_ESCAPES,
            () ->
                new TarBuilder()
                    .dir("a")
                    .dir("a/b")
                    .symlink("l2", "a/b/l1/../..")
                    .symlink("a/b/l1", "..")
                    .manifest()),
        hostile(
            "write-through-absolute-symlink",
            Violation.LINK_ESCAPES,
            () -> new TarBuilder().symlink("link", "/tmp").file("link/" + PWNED, "x").manifest()),
        // Chains that end at a link the host would follow: a link out of the state reached
        // through one of the node's own paths (its output log) or through a top-level directory.
        hostile(
            "output-segment-chained-to-an-absolute-link-in-home",
            Violation.LINK_ESCAPES,
            () ->
                new TarBuilder()
                    .dir("home")
                    .symlink("home/x", "/etc/shadow")
                    .dir("output")
                    .symlink("output/00000000000000000000.seg", "../home/x")
                    .manifest()),
        hostile(
            "top-level-home-chained-to-an-absolute-link-in-tmp",
            Violation.LINK_ESCAPES,
            () ->
                new TarBuilder()
                    .dir("tmp")
                    .symlink("tmp/l", "/")
                    .symlink("home", "tmp/l")
                    .manifest()),
        hostile(
            "write-through-absolute-symlink-in-home",
            Violation.WRITE_THROUGH_LINK,
            () ->
                new TarBuilder()
                    .dir("home")
                    .symlink("home/link", "/tmp")
                    .file("home/link/" + PWNED, "x")
                    .manifest()),
        hostile(
            "write-through-symlink-dir",
            Violation.WRITE_THROUGH_LINK,
            () ->
                new TarBuilder()
                    .dir("home")
                    .dir("home/inner")
                    .symlink("home/link", "inner")
                    .file("home/link/" + PWNED, "x")
                    .manifest()),
        hostile(
            "write-through-symlink-deep",
            Violation.WRITE_THROUGH_LINK,
            () ->
                new TarBuilder()
                    .dir("home")
                    .dir("home/inner")
                    .symlink("home/link", "inner")
                    .dir("home/link/sub")
                    .file("home/link/sub/" + PWNED, "x")
                    .manifest()),
        // Links elsewhere than the workload's trees, and relative ones leaving their tree.
        hostile(
            "symlink-in-the-shell-state",
            Violation.LINK_ESCAPES,
            () ->
                new TarBuilder()
                    .dir("shell-state")
                    .symlink("shell-state/rc.bash", "../home/rc")
                    .manifest()),
        hostile(
            "relative-symlink-from-home-into-the-output-log",
            Violation.LINK_ESCAPES,
            () ->
                new TarBuilder()
                    .dir("home")
                    .dir("output")
                    .symlink("home/log", "../output")
                    .manifest()),
        hostile(
            "hardlink-to-etc-passwd",
            Violation.HARDLINK,
            () -> link("passwd", "/etc/passwd").manifest()),
        hostile(
            "hardlink-inside",
            Violation.HARDLINK,
            () -> new TarBuilder().file("a", "x").raw(hardlink("b", "a"), new byte[0]).manifest()),
        hostile(
            "char-device",
            Violation.SPECIAL_FILE,
            () -> device("null", TarConstants.LF_CHR).manifest()),
        hostile(
            "block-device",
            Violation.SPECIAL_FILE,
            () -> device("sda", TarConstants.LF_BLK).manifest()),
        hostile(
            "fifo",
            Violation.SPECIAL_FILE,
            () ->
                new TarBuilder()
                    .raw(TarBuilder.entry("fifo", TarConstants.LF_FIFO, 0644), new byte[0])
                    .manifest()),
        hostile(
            "gnu-sparse",
            Violation.SPECIAL_FILE,
            () ->
                new TarBuilder()
                    .raw(
                        TarBuilder.entry("sparse", TarConstants.LF_GNUTYPE_SPARSE, 0644),
                        new byte[0])
                    .manifest()),
        hostile(
            "setuid-file",
            Violation.SPECIAL_MODE,
            () -> new TarBuilder().file("su", "#!/bin/sh\n".getBytes(UTF_8), 04755).manifest()),
        hostile(
            "setgid-dir",
            Violation.SPECIAL_MODE,
            () -> new TarBuilder().dir("shared", 02755).manifest()),
        hostile(
            "sticky-dir",
            Violation.SPECIAL_MODE,
            () -> new TarBuilder().dir("tmp", 01777).manifest()),
        hostile(
            "world-writable-file",
            Violation.SPECIAL_MODE,
            () -> new TarBuilder().file("open", "x".getBytes(UTF_8), 0666).manifest()),
        hostile(
            "zstd-bomb",
            Violation.COMPRESSION_RATIO,
            () -> new TarBuilder().file("zeros", new byte[64 << 20], 0644).manifest()),
        new Case(
            "declared-size-over-entry-limit",
            Violation.ENTRY_SIZE_LIMIT,
            ArchiveLimits.defaults(),
            HostileArchives::hugeDeclaredSize),
        new Case(
            "total-bytes-over-limit",
            Violation.TOTAL_BYTES_LIMIT,
            ArchiveLimits.defaults().withMaxTotalBytes(10_000),
            () ->
                new TarBuilder()
                    .file("a", TarBuilder.noise(4096, 1), 0644)
                    .file("b", TarBuilder.noise(4096, 2), 0644)
                    .file("c", TarBuilder.noise(4096, 3), 0644)
                    .manifest()
                    .archive()),
        new Case(
            "too-many-entries",
            Violation.ENTRY_COUNT_LIMIT,
            ArchiveLimits.defaults().withMaxEntries(20),
            () -> manyFiles(50).manifest().archive()),
        hostile(
            "path-too-long",
            Violation.PATH_TOO_LONG,
            () -> new TarBuilder().file(longPath(5, 220), "x").manifest()),
        hostile(
            "path-too-deep",
            Violation.PATH_TOO_LONG,
            () -> new TarBuilder().file("d/".repeat(70) + "f", "x").manifest()),
        hostile(
            "newline-in-name",
            Violation.BAD_NAME,
            () -> new TarBuilder().file("evil\nname", "x").manifest()),
        hostile(
            "dot-segment",
            Violation.BAD_NAME,
            () -> new TarBuilder().file("./" + PWNED, "x").manifest()),
        hostile(
            "empty-segment",
            Violation.BAD_NAME,
            () -> new TarBuilder().dir("a").file("a//" + PWNED, "x").manifest()),
        hostile(
            "duplicate-entry",
            Violation.DUPLICATE_PATH,
            () -> new TarBuilder().file("a", "one").file("a", "two").manifest()),
        hostile(
            "unicode-normalization-collision",
            Violation.DUPLICATE_PATH,
            () ->
                new TarBuilder()
                    .file(Normalizer.normalize("caf\u00e9", Normalizer.Form.NFC), "one")
                    .file(Normalizer.normalize("caf\u00e9", Normalizer.Form.NFD), "two")
                    .manifest()),
        new Case(
            "pax-header-bomb",
            Violation.HEADER_TOO_LARGE,
            ArchiveLimits.defaults(),
            HostileArchives::paxBomb),
        new Case(
            "zstd-window-too-large",
            Violation.WINDOW_TOO_LARGE,
            ArchiveLimits.defaults(),
            HostileArchives::largeWindow),
        hostile(
            "manifest-digest-mismatch",
            Violation.DIGEST_MISMATCH,
            () -> home().manifest(TarBuilder.IDENTITY, m -> withDigest(m, "0".repeat(64)))),
        hostile(
            "file-not-in-manifest",
            Violation.NOT_IN_MANIFEST,
            () ->
                home()
                    .raw(
                        TarBuilder.entry("home/extra", TarConstants.LF_NORMAL, 0644),
                        "extra".getBytes(UTF_8))
                    .manifest()),
        hostile(
            "manifest-file-missing",
            Violation.MISSING_FROM_ARCHIVE,
            () ->
                home()
                    .listOnly(ManifestEntry.file("home/gone", 1, 0644, "a".repeat(64)))
                    .manifest()),
        hostile(
            "content-differs-from-manifest",
            Violation.ENTRY_MISMATCH,
            HostileArchives::contentDiffers),
        hostile("missing-manifest", Violation.MISSING_MANIFEST, HostileArchives::home),
        hostile(
            "duplicate-manifest",
            Violation.ENTRY_AFTER_MANIFEST,
            () -> home().manifest().manifest()),
        hostile(
            "entry-after-manifest",
            Violation.ENTRY_AFTER_MANIFEST,
            () -> home().manifest().file("late", "x")),
        hostile(
            "manifest-not-json",
            Violation.BAD_MANIFEST,
            () ->
                home()
                    .raw(
                        TarBuilder.entry(ArchiveFormat.MANIFEST_NAME, TarConstants.LF_NORMAL, 0644),
                        "{not json".getBytes(UTF_8))),
        hostile(
            "manifest-of-another-session",
            Violation.IDENTITY_MISMATCH,
            () -> home().manifest(new ArchiveIdentity("s-other", 7, TarBuilder.CREATED), m -> m)),
        hostile(
            "manifest-of-another-generation",
            Violation.IDENTITY_MISMATCH,
            () ->
                home()
                    .manifest(
                        new ArchiveIdentity(TarBuilder.IDENTITY.session(), 6, TarBuilder.CREATED),
                        m -> m)),
        hostile(
            "parent-not-in-archive",
            Violation.MISSING_PARENT,
            () -> new TarBuilder().file("nowhere/" + PWNED, "x").manifest()),
        new Case(
            "truncated-stream",
            Violation.BAD_FRAMING,
            ArchiveLimits.defaults(),
            HostileArchives::truncated),
        new Case(
            "garbage-bytes",
            Violation.BAD_FRAMING,
            ArchiveLimits.defaults(),
            () -> TarBuilder.noise(4096, 42)),
        new Case(
            "trailing-data-after-tar",
            Violation.TRAILING_DATA,
            ArchiveLimits.defaults(),
            HostileArchives::trailingData));
  }

  private static Case hostile(String name, Violation violation, Supplier<TarBuilder> tar) {
    return new Case(name, violation, ArchiveLimits.defaults(), () -> tar.get().archive());
  }

  /** A valid little tree to spoil. */
  private static TarBuilder home() {
    return new TarBuilder().dir("home").file("home/notes.txt", "hello\n");
  }

  private static TarBuilder raw(String name) {
    return new TarBuilder()
        .raw(TarBuilder.entry(name, TarConstants.LF_NORMAL, 0644), "x".getBytes(UTF_8));
  }

  private static TarBuilder link(String name, String target) {
    return new TarBuilder().raw(hardlink(name, target), new byte[0]);
  }

  private static TarArchiveEntry hardlink(String name, String target) {
    TarArchiveEntry e = TarBuilder.entry(name, TarConstants.LF_LINK, 0644);
    e.setLinkName(target);
    return e;
  }

  private static TarBuilder device(String name, byte type) {
    TarArchiveEntry e = TarBuilder.entry(name, type, 0666 & ~0002);
    e.setDevMajor(1);
    e.setDevMinor(3);
    return new TarBuilder().raw(e, new byte[0]);
  }

  private static TarBuilder manyFiles(int n) {
    TarBuilder tar = new TarBuilder();
    for (int i = 0; i < n; i++) {
      tar.file("f" + i, "");
    }
    return tar;
  }

  private static String longPath(int segments, int length) {
    String segment = "s".repeat(length);
    return String.join("/", Collections.nCopies(segments, segment));
  }

  private static Manifest withDigest(Manifest m, String digest) {
    return new Manifest(
        m.format(), m.session(), m.generation(), m.createdAt(), m.files(), m.totalBytes(), digest);
  }

  /** The manifest promises other content for home/notes.txt (its own digest is consistent). */
  private static TarBuilder contentDiffers() {
    return new TarBuilder()
        .dir("home")
        .raw(
            TarBuilder.entry("home/notes.txt", TarConstants.LF_NORMAL, 0644),
            "hello\n".getBytes(UTF_8))
        .listOnly(
            ManifestEntry.file(
                "home/notes.txt", 6, 0644, TarBuilder.sha256("HELLO\n".getBytes(UTF_8))))
        .manifest();
  }

  /** One header declaring 5 GiB (over the 4 GiB entry limit) and no data at all. */
  private static byte[] hugeDeclaredSize() {
    TarArchiveEntry e = TarBuilder.entry("huge", TarConstants.LF_NORMAL, 0644);
    e.setSize(5L << 30);
    byte[] header = new byte[512];
    e.writeEntryHeader(header);
    return TarBuilder.zstd(header);
  }

  /** A PAX extended header of 1 MiB before an ordinary entry. */
  private static byte[] paxBomb() {
    TarArchiveEntry e = TarBuilder.entry("f", TarConstants.LF_NORMAL, 0644);
    e.addPaxHeader("BERTH.padding", "p".repeat(1 << 20));
    return new TarBuilder().raw(e, "x".getBytes(UTF_8)).manifest().archive();
  }

  /** A valid archive whose zstd frame declares a 128 MiB window (windowLog 27). */
  private static byte[] largeWindow() {
    byte[] tar = home().manifest().tar();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (ZstdOutputStreamNoFinalizer z =
        new ZstdOutputStreamNoFinalizer(out, ArchiveFormat.ZSTD_LEVEL)) {
      z.setWindowLog(27);
      z.write(tar, 0, 512);
      z.flush();
      z.write(tar, 512, tar.length - 512);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }

  private static byte[] truncated() {
    byte[] whole =
        home().file("home/data", TarBuilder.noise(16 * 1024, 7), 0644).manifest().archive();
    return Arrays.copyOf(whole, whole.length / 2);
  }

  private static byte[] trailingData() {
    byte[] tar = home().manifest().tar();
    byte[] longer = Arrays.copyOf(tar, tar.length + 16 * 1024);
    Arrays.fill(longer, tar.length, longer.length, (byte) 'X');
    return TarBuilder.zstd(longer);
  }
}
