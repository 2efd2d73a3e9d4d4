package dev.berth.agent.archive;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The archive extractor under a seeded mutational loop: valid archives and the hostile corpus,
 * broken at the zstd level (truncation, bit flips, spliced bytes) and at the tar level (names made
 * absolute or {@code ../}, entry types turned into devices, FIFOs, hard and symbolic links out of
 * the tree, sizes declared huge, headers flipped), then restored. A restore either succeeds or
 * refuses with its documented {@link ArchiveException}; it never writes outside its target, never
 * leaves its staging directory, and ends within a bound. The seed is printed; {@code
 * -Dberth.seed=N} replays a run and {@code -Dberth.sweep=full} runs many more.
 */
class ArchiveFuzzTest {

  private static final boolean FULL = "full".equals(System.getProperty("berth.sweep"));
  private static final int RUNS = FULL ? 5000 : 250;
  private static final Duration BUDGET = FULL ? Duration.ofMinutes(10) : Duration.ofSeconds(15);
  private static final Duration PER_RESTORE = Duration.ofSeconds(20);
  private static final Path TMP_PWNED = Path.of("/tmp", HostileArchives.PWNED);
  private static final ArchiveLimits LIMITS =
      ArchiveLimits.defaults().withMaxTotalBytes(64L << 20).withMaxEntryBytes(16L << 20);

  @TempDir Path base;

  @Test
  void mutatedArchivesRestoreOrAreRefusedAndNothingIsWrittenOutsideTheTarget() throws Exception {
    Long given = Long.getLong("berth.seed");
    long seed = given != null ? given : System.nanoTime();
    System.out.println("archive fuzz: seed " + seed + " (re-run with -Dberth.seed=" + seed + ")");
    SplittableRandom random = new SplittableRandom(seed);
    List<byte[]> tars = corpus();
    Files.createDirectories(base.resolve("canary"));
    Files.writeString(base.resolve("canary/canary.txt"), "tweet\n");
    Map<String, String> canary = TreeDigest.of(base.resolve("canary"));
    boolean pwnedBefore = Files.exists(TMP_PWNED);
    List<String> failures = new ArrayList<>();
    long deadline = System.nanoTime() + BUDGET.toNanos();
    int restored = 0;
    int refused = 0;
    int run = 0;
    ExecutorService worker = Executors.newVirtualThreadPerTaskExecutor();
    try {
      for (; run < RUNS && System.nanoTime() < deadline; run++) {
        byte[] tar = tars.get(random.nextInt(tars.size()));
        Mutant mutant = mutate(tar, random);
        Path work = Files.createDirectories(base.resolve("work-" + run));
        Path target = Files.createDirectories(work.resolve("target"));
        Files.writeString(target.resolve("before.txt"), "before\n");
        Future<Manifest> restore =
            worker.submit(
                () ->
                    ArchiveRestorer.restore(
                        new ByteArrayInputStream(mutant.bytes()),
                        target,
                        TarBuilder.IDENTITY,
                        LIMITS));
        String what = "#" + run + " " + mutant.name();
        try {
          restore.get(PER_RESTORE.toMillis(), TimeUnit.MILLISECONDS);
          restored++;
        } catch (java.util.concurrent.ExecutionException e) {
          if (e.getCause() instanceof ArchiveException) {
            refused++;
            if (!Files.readString(target.resolve("before.txt")).equals("before\n")) {
              failures.add(what + ": refused, but the target was changed");
            }
          } else {
            failures.add(what + ": threw " + e.getCause());
          }
        } catch (TimeoutException e) {
          restore.cancel(true);
          failures.add(what + ": still restoring after " + PER_RESTORE);
        }
        try (Stream<Path> left = Files.list(work)) {
          List<String> names = left.map(p -> p.getFileName().toString()).toList();
          if (!names.equals(List.of("target"))) {
            failures.add(what + ": left " + names + " beside the target");
          }
        }
        Trees.delete(work);
      }
    } finally {
      worker.shutdownNow();
    }
    System.out.println(
        "archive fuzz: " + run + " mutants, " + restored + " restored, " + refused + " refused");

    assertThat(failures).as("seed %s", seed).isEmpty();
    assertThat(TreeDigest.of(base.resolve("canary"))).isEqualTo(canary);
    assertThat(Files.exists(TMP_PWNED)).isEqualTo(pwnedBefore);
    try (Stream<Path> left = Files.list(base)) {
      assertThat(left.map(p -> p.getFileName().toString()))
          .as("nothing was written beside the targets")
          .containsExactly("canary");
    }
  }

  /** One mutated archive and what was done to it. */
  private record Mutant(String name, byte[] bytes) {}

  /** Uncompressed tars to start from: valid archives of several shapes, and the hostile corpus. */
  private static List<byte[]> corpus() {
    List<byte[]> tars = new ArrayList<>();
    tars.add(new TarBuilder().dir("home").file("home/a.txt", "hello\n").manifest().tar());
    tars.add(
        new TarBuilder()
            .dir("home")
            .dir("home/docs")
            .file("home/docs/b.bin", TarBuilder.noise(3000, 3), 0644)
            .file("home/run.sh", "#!/bin/sh\necho hi\n".getBytes(UTF_8), 0755)
            .symlink("home/link", "docs/b.bin")
            .manifest()
            .tar());
    tars.add(new TarBuilder().manifest().tar());
    for (HostileArchives.Case hostile : HostileArchives.cases()) {
      byte[] bytes = hostile.bytes().get();
      try {
        tars.add(unzstd(bytes));
      } catch (IOException | RuntimeException notZstd) {
        // a case broken at the zstd level itself: mutated as compressed bytes only
      }
    }
    return tars;
  }

  private static Mutant mutate(byte[] tar, SplittableRandom random) {
    int kind = random.nextInt(10);
    if (kind < 3) {
      return compressedLevel(TarBuilder.zstd(tar), random);
    }
    byte[] copy = tar.clone();
    String name = tarLevel(copy, random);
    return new Mutant(name, TarBuilder.zstd(copy));
  }

  private static Mutant compressedLevel(byte[] zst, SplittableRandom random) {
    return switch (random.nextInt(3)) {
      case 0 -> {
        int cut = random.nextInt(zst.length);
        yield new Mutant("zstd truncated at " + cut, java.util.Arrays.copyOf(zst, cut));
      }
      case 1 -> {
        byte[] copy = zst.clone();
        int flips = 1 + random.nextInt(4);
        for (int i = 0; i < flips; i++) {
          copy[random.nextInt(copy.length)] ^= (byte) (1 << random.nextInt(8));
        }
        yield new Mutant("zstd with " + flips + " bit flips", copy);
      }
      default -> {
        byte[] extra = TarBuilder.noise(1 + random.nextInt(64), random.nextLong());
        int at = random.nextInt(zst.length + 1);
        byte[] spliced = new byte[zst.length + extra.length];
        System.arraycopy(zst, 0, spliced, 0, at);
        System.arraycopy(extra, 0, spliced, at, extra.length);
        System.arraycopy(zst, at, spliced, at + extra.length, zst.length - at);
        yield new Mutant("zstd with " + extra.length + " bytes spliced in at " + at, spliced);
      }
    };
  }

  /** Mutates one tar header (or the data) of {@code tar} in place; returns what it did. */
  private static String tarLevel(byte[] tar, SplittableRandom random) {
    List<Integer> headers = headers(tar);
    int h = headers.get(random.nextInt(headers.size()));
    return switch (random.nextInt(7)) {
      case 0 ->
          name(
              tar,
              h,
              new String[] {
                    "../" + HostileArchives.PWNED,
                    "/tmp/" + HostileArchives.PWNED,
                    "a/../../x",
                    "./",
                    "",
                    "home/\u0001"
                  }
                  [random.nextInt(6)]);
      case 1 -> {
        byte[] types = {'3', '4', '6', '1', '2', '7', 'S', 'x', 'K', 'L', 'g', 'x', 0};
        byte type = types[random.nextInt(types.length)];
        tar[h + 156] = type;
        if (type == '1' || type == '2') {
          write(
              tar,
              h + 157,
              100,
              new String[] {"../../..", "/etc/passwd", "/tmp", ".."}[random.nextInt(4)]);
        }
        yield "entry at " + h + " made type '" + (char) type + "'";
      }
      case 2 -> {
        String size =
            new String[] {"77777777777", "00000000000", "7777777777\u0000", "99999999999"}
                [random.nextInt(4)];
        write(tar, h + 124, 12, size);
        fixChecksum(tar, h);
        yield "entry at " + h + " declares size " + size.strip();
      }
      case 3 -> {
        // base-256 size: a huge number in the binary form GNU tar uses
        tar[h + 124] = (byte) 0x80;
        for (int i = 125; i < 136; i++) {
          tar[h + i] = (byte) random.nextInt(256);
        }
        fixChecksum(tar, h);
        yield "entry at " + h + " declares a base-256 size";
      }
      case 4 -> {
        write(
            tar,
            h + 100,
            8,
            new String[] {"0004755", "0002755", "0001777", "0000777", "7777777"}
                [random.nextInt(5)]);
        fixChecksum(tar, h);
        yield "entry at " + h + " given special mode bits";
      }
      case 5 -> {
        int at = random.nextInt(tar.length);
        tar[at] ^= (byte) (1 << random.nextInt(8));
        yield "tar bit flip at " + at;
      }
      default -> {
        int at = h + random.nextInt(512);
        tar[at] = (byte) random.nextInt(256);
        fixChecksum(tar, h);
        yield "header byte " + (at - h) + " of entry at " + h + " set, checksum fixed";
      }
    };
  }

  private static String name(byte[] tar, int h, String name) {
    write(tar, h, 100, name);
    // a PAX path would override the name: only ustar names are rewritten, so drop the prefix too
    write(tar, h + 345, 155, "");
    fixChecksum(tar, h);
    return "entry at " + h + " renamed " + name.replace("\u0001", "\\x01");
  }

  /** Offsets of the headers of {@code tar} (every 512-byte block that starts an entry). */
  private static List<Integer> headers(byte[] tar) {
    List<Integer> headers = new ArrayList<>();
    int at = 0;
    while (at + 512 <= tar.length && tar[at] != 0) {
      headers.add(at);
      long size = 0;
      for (int i = 124; i < 136 && tar[at + i] >= '0' && tar[at + i] <= '7'; i++) {
        size = size * 8 + (tar[at + i] - '0');
      }
      at += 512 + (int) ((size + 511) / 512) * 512;
    }
    return headers.isEmpty() ? List.of(0) : headers;
  }

  private static void write(byte[] tar, int at, int length, String value) {
    byte[] bytes = value.getBytes(UTF_8);
    for (int i = 0; i < length; i++) {
      tar[at + i] = i < bytes.length ? bytes[i] : 0;
    }
  }

  private static void fixChecksum(byte[] tar, int h) {
    for (int i = 148; i < 156; i++) {
      tar[h + i] = ' ';
    }
    long sum = 0;
    for (int i = 0; i < 512; i++) {
      sum += tar[h + i] & 0xff;
    }
    write(tar, h + 148, 8, String.format("%06o", sum) + "\u0000 ");
  }

  private static byte[] unzstd(byte[] zst) throws IOException {
    try (var in =
        new com.github.luben.zstd.ZstdInputStreamNoFinalizer(new ByteArrayInputStream(zst))) {
      return in.readAllBytes();
    }
  }
}
