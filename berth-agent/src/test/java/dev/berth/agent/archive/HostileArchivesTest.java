package dev.berth.agent.archive;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every archive of the hostile corpus is refused with the right reason and violation, and leaves
 * the target, its parent (where escapes and the staging directory would land) and a canary
 * directory exactly as they were.
 */
class HostileArchivesTest {
  private static final boolean REGENERATE = Boolean.getBoolean("berth.archives.regenerate");
  private static final Path TMP_PWNED = Path.of("/tmp", HostileArchives.PWNED);

  @TempDir Path base;
  private Path target;

  static List<HostileArchives.Case> cases() {
    return HostileArchives.cases();
  }

  @BeforeEach
  void aTargetWithKnownContentAndACanary() throws IOException {
    target = Files.createDirectories(base.resolve("work/target"));
    Files.createDirectories(target.resolve("home/docs"));
    Files.writeString(target.resolve("home/docs/keep.txt"), "keep me\n");
    Files.write(target.resolve("home/data.bin"), TarBuilder.noise(3000, 9));
    Files.createSymbolicLink(target.resolve("home/link"), Path.of("docs/keep.txt"));
    Files.createDirectories(base.resolve("canary"));
    Files.writeString(base.resolve("canary/canary.txt"), "tweet\n");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void isRefusedWithTheTargetUntouched(HostileArchives.Case hostile) throws IOException {
    Map<String, String> before = TreeDigest.of(base);
    boolean tmpPwnedBefore = Files.exists(TMP_PWNED);

    ArchiveException refused;
    try (InputStream in = Files.newInputStream(committed(hostile))) {
      refused =
          catchThrowableOfType(
              ArchiveException.class,
              () -> ArchiveRestorer.restore(in, target, TarBuilder.IDENTITY, hostile.limits()));
    }

    assertThat(refused).as("restore of %s", hostile.name()).isNotNull();
    assertThat(refused.violation()).as(refused.getMessage()).isEqualTo(hostile.violation());
    assertThat(refused.reason()).isEqualTo(hostile.violation().reason());
    assertThat(refused)
        .isInstanceOf(
            hostile.violation().kind() == Violation.Kind.UNSAFE
                ? ArchiveUnsafeException.class
                : ArchiveCorruptException.class);
    assertThat(TreeDigest.of(base)).isEqualTo(before);
    assertThat(Files.exists(TMP_PWNED)).isEqualTo(tmpPwnedBefore);
  }

  @Test
  void theCommittedCorpusIsWhatTheGeneratorProduces() throws IOException {
    List<HostileArchives.Case> cases = HostileArchives.cases();
    if (REGENERATE) {
      Files.createDirectories(HostileArchives.DIRECTORY);
      for (HostileArchives.Case c : cases) {
        Files.write(committed(c), c.bytes().get());
      }
    }
    for (HostileArchives.Case c : cases) {
      assertThat(Files.readAllBytes(committed(c)))
          .as("%s is stale; rerun with -Dberth.archives.regenerate=true", committed(c))
          .isEqualTo(c.bytes().get());
    }
    try (Stream<Path> files = Files.list(HostileArchives.DIRECTORY)) {
      assertThat(files.map(p -> p.getFileName().toString()))
          .containsExactlyInAnyOrderElementsOf(
              cases.stream().map(c -> c.name() + ".tar.zst").toList());
    }
  }

  @Test
  void everyCaseHasItsOwnName() {
    assertThat(HostileArchives.cases().stream().map(HostileArchives.Case::name))
        .doesNotHaveDuplicates()
        .allMatch(n -> n.matches("[a-z0-9-]+"), "lowercase words and dashes")
        .allMatch(n -> n.getBytes(UTF_8).length < 64);
  }

  private static Path committed(HostileArchives.Case c) {
    return HostileArchives.DIRECTORY.resolve(c.name() + ".tar.zst");
  }
}
