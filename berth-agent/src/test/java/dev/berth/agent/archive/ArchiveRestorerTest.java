package dev.berth.agent.archive;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The restore protocol around the checks: identity, crash leftovers, failing sources. */
class ArchiveRestorerTest {
  private static final ArchiveLimits LIMITS = ArchiveLimits.defaults();

  @TempDir Path base;

  private final byte[] archive =
      new TarBuilder().dir("home").file("home/new.txt", "new\n").manifest().archive();

  @Test
  void aCrashBetweenTheTwoRenamesIsUndoneSoTheOldTreeIsBack() throws IOException {
    Path target = base.resolve("state");
    Files.writeString(
        Files.createDirectories(base.resolve(".state.restore-old")).resolve("old.txt"), "old");
    Files.writeString(
        Files.createDirectories(base.resolve(".state.restore-staging")).resolve("new.txt"), "new");

    assertThat(ArchiveRestorer.recover(target)).isTrue();

    assertThat(target.resolve("old.txt")).hasContent("old");
    assertThat(siblings()).containsExactly("state");
  }

  @Test
  void aCrashAfterTheSwapKeepsTheNewTreeAndDropsTheOldOne() throws IOException {
    Path target = Files.createDirectories(base.resolve("state"));
    Files.writeString(target.resolve("new.txt"), "new");
    Path old = Files.createDirectories(base.resolve(".state.restore-old/deep/er"));
    Files.setPosixFilePermissions(old, PosixFilePermissions.fromString("r-x------"));

    assertThat(ArchiveRestorer.recover(target)).isTrue();

    assertThat(target.resolve("new.txt")).hasContent("new");
    assertThat(siblings()).containsExactly("state");
  }

  @Test
  void anInterruptedExtractionIsRemovedByTheNextRestore() throws IOException {
    Path target = Files.createDirectories(base.resolve("state"));
    Files.writeString(target.resolve("old.txt"), "old");
    Files.writeString(
        Files.createDirectories(base.resolve(".state.restore-staging/home")).resolve("half"), "h");

    restore(archive, target);

    assertThat(TreeDigest.of(target)).containsOnlyKeys("", "home", "home/new.txt");
    assertThat(siblings()).containsExactly("state");
  }

  @Test
  void nothingIsLeftToRecoverAfterACleanRestore() throws IOException {
    Path target = base.resolve("state");
    restore(archive, target);

    assertThat(ArchiveRestorer.recover(target)).isFalse();
  }

  @Test
  void aFailingSourceIsRethrownAsItsOwnErrorNotBlamedOnTheArchive() throws IOException {
    Path target = Files.createDirectories(base.resolve("state"));
    Files.writeString(target.resolve("old.txt"), "old");
    Map<String, String> before = TreeDigest.of(base);
    InputStream broken =
        new java.io.SequenceInputStream(
            new ByteArrayInputStream(archive, 0, archive.length / 2),
            new InputStream() {
              @Override
              public int read() throws IOException {
                throw new IOException("connection reset by the archive store");
              }

              @Override
              public int read(byte[] b, int off, int len) throws IOException {
                throw new IOException("connection reset by the archive store");
              }
            });

    assertThatThrownBy(() -> ArchiveRestorer.restore(broken, target, LIMITS))
        .isInstanceOf(IOException.class)
        .isNotInstanceOf(ArchiveException.class)
        .hasMessage("connection reset by the archive store");
    assertThat(TreeDigest.of(base)).isEqualTo(before);
  }

  @Test
  void aRefusalNamesTheRuleTheEntryAndItsPosition() {
    byte[] hostile = new TarBuilder().dir("a").file("a/../../x", "x").manifest().archive();

    assertThatThrownBy(() -> restore(hostile, base.resolve("state")))
        .isInstanceOfSatisfying(
            ArchiveUnsafeException.class,
            e -> {
              assertThat(e.reason())
                  .isEqualTo(dev.berth.protocol.problem.AgentReason.ARCHIVE_UNSAFE);
              assertThat(e.violation()).isEqualTo(Violation.PARENT_SEGMENT);
              assertThat(e.entryIndex()).hasValue(1);
              assertThat(e.entryName()).contains("a/../../x");
            })
        .hasMessageContaining("entry #1")
        .hasMessageContaining("'..'");
  }

  @Test
  void withoutAnExpectedIdentityAnySessionsArchiveIsAccepted() throws IOException {
    Manifest m =
        ArchiveRestorer.restore(new ByteArrayInputStream(archive), base.resolve("state"), LIMITS);

    assertThat(m.identity()).isEqualTo(TarBuilder.IDENTITY);
  }

  @Test
  void theCreationTimeIsNotPartOfTheExpectedIdentity() throws IOException {
    ArchiveIdentity sameButLater =
        new ArchiveIdentity(
            TarBuilder.IDENTITY.session(),
            TarBuilder.IDENTITY.generation(),
            TarBuilder.CREATED.plusSeconds(60));

    Manifest m =
        ArchiveRestorer.restore(
            new ByteArrayInputStream(archive), base.resolve("state"), sameButLater, LIMITS);

    assertThat(m.files()).extracting(ManifestEntry::path).containsExactly("home", "home/new.txt");
  }

  @Test
  void compressibleContentPassesWhenTheRatioLimitIsRaised() throws IOException {
    byte[] zeros = new TarBuilder().file("zeros", new byte[8 << 20], 0644).manifest().archive();
    Path target = base.resolve("state");

    assertThatThrownBy(() -> restore(zeros, target))
        .isInstanceOfSatisfying(
            ArchiveUnsafeException.class,
            e -> assertThat(e.violation()).isEqualTo(Violation.COMPRESSION_RATIO));
    ArchiveRestorer.restore(
        new ByteArrayInputStream(zeros), target, LIMITS.withMaxRatio(1_000_000));

    assertThat(Files.size(target.resolve("zeros"))).isEqualTo(8 << 20);
  }

  @Test
  void theManifestIsReadStrictly() {
    byte[] json =
        "{\"format\":1,\"session\":\"s\",\"generation\":1,\"createdAt\":\"2026-01-01T00:00:00Z\",\"files\":[],\"totalBytes\":0,\"digest\":\"x\",\"extra\":1}"
            .getBytes(UTF_8);

    assertThatThrownBy(() -> ManifestCodec.read(json))
        .isInstanceOfSatisfying(
            ArchiveCorruptException.class,
            e -> assertThat(e.violation()).isEqualTo(Violation.BAD_MANIFEST))
        .hasMessageContaining("extra");
  }

  private void restore(byte[] bytes, Path target) throws IOException {
    ArchiveRestorer.restore(new ByteArrayInputStream(bytes), target, TarBuilder.IDENTITY, LIMITS);
  }

  private Stream<String> siblings() throws IOException {
    try (Stream<Path> list = Files.list(base)) {
      return list.map(p -> p.getFileName().toString()).toList().stream();
    }
  }
}
