package dev.berth.server.archive.filesystem;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.berth.core.archive.ArchiveUpload;
import dev.berth.core.error.AlreadyExistsException;
import dev.berth.core.error.NotFoundException;
import dev.berth.core.lifecycle.Failpoints;
import dev.berth.core.session.ArchiveRef;
import dev.berth.core.session.SessionId;
import dev.berth.core.testing.MutableClock;
import dev.berth.core.testing.SimulatedCrash;
import dev.berth.core.testing.TestSessions;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What the filesystem archive store does with its files: layout, digests, streaming to disk, and
 * every state a crash can leave — both at its own crash points and as torn pairs made by hand.
 */
class FilesystemArchiveStoreFileTest {
  private static final List<String> CONTENTS = List.of("home", "output", "shell-state");

  @TempDir Path dir;

  private final MutableClock clock = MutableClock.at("2026-11-29T10:00:00.123456789Z");
  private final SessionId session = TestSessions.newId();

  private Path root() {
    return dir.resolve("archives");
  }

  private Path sessionDir() {
    return root().resolve(session.value());
  }

  private FilesystemArchiveStore store() {
    return new FilesystemArchiveStore(root(), clock);
  }

  private static byte[] bytes(long seed, int size) {
    byte[] data = new byte[size];
    new SplittableRandom(seed).nextBytes(data);
    return data;
  }

  private static ArchiveRef commit(
      FilesystemArchiveStore store, SessionId session, long generation, byte[] data)
      throws IOException {
    try (ArchiveUpload upload = store.begin(session, generation)) {
      upload.stream().write(data);
      return upload.commit(CONTENTS);
    }
  }

  private List<String> filesOf(Path directory) throws IOException {
    if (!Files.exists(directory)) {
      return List.of();
    }
    try (Stream<Path> files = Files.list(directory)) {
      return files.map(f -> f.getFileName().toString()).sorted().toList();
    }
  }

  /** The ref a store would give generation {@code g} of this test's session, digest aside. */
  private ArchiveRef refFor(long generation) {
    return new ArchiveRef(
        generation,
        FilesystemArchiveStore.uri(session, generation),
        0,
        "0".repeat(64),
        Instant.EPOCH,
        List.of());
  }

  // ---- layout ---------------------------------------------------------------------------------

  @Test
  void anArchiveIsItsGenerationFileWithASidecarInItsSessionDirectory() throws Exception {
    FilesystemArchiveStore store = store();
    ArchiveRef ref = commit(store, session, 3, bytes(1, 4096));

    assertThat(filesOf(root())).containsExactly(session.value());
    assertThat(filesOf(sessionDir())).containsExactly("3.json", "3.tar.zst");
    assertThat(Files.readAllBytes(sessionDir().resolve("3.tar.zst"))).isEqualTo(bytes(1, 4096));
    assertThat(ref.uri()).isEqualTo("archive://" + session.value() + "/3");
    assertThat(ref.uri()).doesNotContain(dir.toString());
    String sidecar = Files.readString(sessionDir().resolve("3.json"), StandardCharsets.UTF_8);
    assertThat(sidecar)
        .contains("\"format\":1")
        .contains("\"session\":\"" + session.value() + "\"")
        .contains("\"generation\":3")
        .contains("\"sizeBytes\":4096")
        .contains("\"sha256\":\"" + ref.sha256() + "\"")
        .contains("\"createdAt\":\"2026-11-29T10:00:00.123456789Z\"")
        .contains("\"contents\":[\"home\",\"output\",\"shell-state\"]");
  }

  @Test
  void archivesAndSessionDirectoriesArePrivateToTheServerUser() throws Exception {
    assumeTrue(root().getFileSystem().supportedFileAttributeViews().contains("posix"));
    FilesystemArchiveStore store = store();
    commit(store, session, 1, bytes(2, 10));

    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(sessionDir())))
        .isEqualTo("rwx------");
    for (String file : List.of("1.tar.zst", "1.json")) {
      assertThat(
              PosixFilePermissions.toString(
                  Files.getPosixFilePermissions(sessionDir().resolve(file))))
          .as(file)
          .isEqualTo("rw-------");
    }
  }

  @Test
  void theArchiveRootAndItsMissingParentsAreCreatedPrivate() throws Exception {
    assumeTrue(root().getFileSystem().supportedFileAttributeViews().contains("posix"));
    Path nested = dir.resolve("data").resolve("archives");

    new FilesystemArchiveStore(nested, clock);

    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(nested.getParent())))
        .isEqualTo("rwx------");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(nested)))
        .isEqualTo("rwx------");
  }

  @Test
  void theDigestIsTheSha256sumOfTheFile() throws Exception {
    Path tool = Path.of("/usr/bin/sha256sum");
    assumeTrue(Files.isExecutable(tool), "sha256sum is not installed");
    FilesystemArchiveStore store = store();
    ArchiveRef ref = commit(store, session, 1, bytes(3, 3_000_017));

    Process process =
        new ProcessBuilder(tool.toString(), sessionDir().resolve("1.tar.zst").toString())
            .redirectErrorStream(true)
            .start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(process.exitValue()).isZero();

    assertThat(output.split("\\s+")[0]).isEqualTo(ref.sha256());
  }

  @Test
  void anUploadStreamsToItsTemporaryFileAsItIsWritten() throws Exception {
    FilesystemArchiveStore store = store();
    int size = 16 * 1024 * 1024;
    try (ArchiveUpload upload = store.begin(session, 1)) {
      byte[] chunk = new byte[64 * 1024];
      for (int written = 0; written < size; written += chunk.length) {
        upload.stream().write(chunk);
      }
      List<String> files = filesOf(sessionDir());
      assertThat(files).singleElement().asString().matches("\\.upload-1-.*\\.tmp");
      assertThat(Files.size(sessionDir().resolve(files.getFirst())))
          .isGreaterThanOrEqualTo(size - 64 * 1024);
    }
    assertThat(filesOf(root())).isEmpty();
  }

  @Test
  void deletingTheLastArchiveOfASessionRemovesItsDirectory() throws Exception {
    FilesystemArchiveStore store = store();
    ArchiveRef one = commit(store, session, 1, bytes(4, 10));
    ArchiveRef two = commit(store, session, 2, bytes(5, 10));

    store.delete(one);
    assertThat(filesOf(sessionDir())).containsExactly("2.json", "2.tar.zst");
    store.delete(two);

    assertThat(filesOf(root())).isEmpty();
  }

  @Test
  void aUriOfAnotherShapeNeverReachesOutsideTheStore() throws Exception {
    FilesystemArchiveStore store = store();
    Path outside = dir.resolve("1.tar.zst");
    Files.writeString(outside, "not an archive");
    ArchiveRef real = commit(store, session, 1, bytes(6, 10));

    for (String uri :
        List.of(
            "archive://../1",
            "archive://" + session.value() + "/../../1",
            "archive://" + session.value() + "/2",
            "archive://" + session.value().toUpperCase(java.util.Locale.ROOT) + "/1",
            "file://" + outside,
            "archive://" + session.value() + "/01")) {
      ArchiveRef foreign = new ArchiveRef(1, uri, 10, real.sha256(), real.createdAt(), CONTENTS);
      assertThatThrownBy(() -> store.open(foreign)).as(uri).isInstanceOf(NotFoundException.class);
      store.delete(foreign);
    }
    assertThat(store.list(session)).containsExactly(real);
    assertThat(outside).exists();
  }

  // ---- crash points ---------------------------------------------------------------------------

  @ParameterizedTest
  @ValueSource(strings = {"archive.commit.synced", "archive.commit.described"})
  void aCrashBeforeTheRenameLeavesNothingAndTheRestartSweepsIt(String point) throws Exception {
    FilesystemArchiveStore kept = store();
    ArchiveRef first = commit(kept, session, 1, bytes(7, 100));
    FilesystemArchiveStore crashing = crashingAt(point);
    ArchiveUpload upload = crashing.begin(session, 2);
    upload.stream().write(bytes(8, 200_000));

    assertThatThrownBy(() -> upload.commit(CONTENTS)).isInstanceOf(SimulatedCrash.class);
    assertThat(crashing.list(session)).containsExactly(first);
    assertThat(filesOf(sessionDir())).anyMatch(f -> f.startsWith(".upload-2-"));

    FilesystemArchiveStore restarted = store();

    assertThat(filesOf(sessionDir())).containsExactly("1.json", "1.tar.zst");
    assertThat(restarted.list(session)).containsExactly(first);
    assertThatThrownBy(() -> restarted.open(refFor(2))).isInstanceOf(NotFoundException.class);
    ArchiveRef again = commit(restarted, session, 2, bytes(9, 10));
    assertThat(restarted.list(session)).containsExactly(first, again);
  }

  @Test
  void aCrashAfterTheRenameLeavesTheWholeDescribedArchive() throws Exception {
    FilesystemArchiveStore crashing = crashingAt("archive.commit.renamed");
    byte[] data = bytes(10, 300_000);
    ArchiveUpload upload = crashing.begin(session, 1);
    upload.stream().write(data);
    assertThatThrownBy(() -> upload.commit(CONTENTS)).isInstanceOf(SimulatedCrash.class);

    FilesystemArchiveStore restarted = store();

    assertThat(filesOf(sessionDir())).containsExactly("1.json", "1.tar.zst");
    ArchiveRef listed = restarted.list(session).getFirst();
    assertThat(listed.sizeBytes()).isEqualTo(data.length);
    assertThat(listed.contents()).isEqualTo(CONTENTS);
    try (InputStream in = restarted.open(listed)) {
      assertThat(in.readAllBytes()).isEqualTo(data);
    }
  }

  @Test
  void aCrashInTheMiddleOfADeleteLeavesNoVisibleArchiveAndTheRestartSweepsTheSidecar()
      throws Exception {
    ArchiveRef ref = commit(store(), session, 1, bytes(11, 100));
    FilesystemArchiveStore crashing = crashingAt("archive.delete.removed");

    assertThatThrownBy(() -> crashing.delete(ref)).isInstanceOf(SimulatedCrash.class);
    assertThat(crashing.list(session)).isEmpty();
    assertThat(filesOf(sessionDir())).containsExactly("1.json");

    FilesystemArchiveStore restarted = store();

    assertThat(filesOf(root())).isEmpty();
    assertThat(restarted.list(session)).isEmpty();
    assertThatThrownBy(() -> restarted.open(ref)).isInstanceOf(NotFoundException.class);
  }

  private FilesystemArchiveStore crashingAt(String point) {
    Failpoints failpoints =
        name -> {
          if (name.equals(point)) {
            throw new SimulatedCrash(name);
          }
        };
    return new FilesystemArchiveStore(root(), clock, failpoints);
  }

  // ---- torn pairs made by hand ----------------------------------------------------------------

  @Test
  void aSidecarWithoutItsArchiveIsNotListedAndIsSweptAtOpen() throws Exception {
    FilesystemArchiveStore store = store();
    commit(store, session, 1, bytes(12, 100));
    Files.copy(sessionDir().resolve("1.json"), sessionDir().resolve("5.json"));
    assertThat(store.list(session)).extracting(ArchiveRef::generation).containsExactly(1L);

    store();

    assertThat(filesOf(sessionDir())).containsExactly("1.json", "1.tar.zst");
  }

  @Test
  void anArchiveWithoutItsSidecarIsNotListedButKeptReadableAndDeletable() throws Exception {
    FilesystemArchiveStore store = store();
    byte[] data = bytes(13, 100);
    ArchiveRef ref = commit(store, session, 1, data);
    Files.delete(sessionDir().resolve("1.json"));

    FilesystemArchiveStore restarted = store();

    assertThat(restarted.list(session)).isEmpty();
    assertThat(filesOf(sessionDir())).containsExactly("1.tar.zst");
    try (InputStream in = restarted.open(ref)) {
      assertThat(in.readAllBytes()).isEqualTo(data);
    }
    assertThatThrownBy(() -> commit(restarted, session, 1, data))
        .isInstanceOf(AlreadyExistsException.class);
    restarted.delete(ref);
    assertThat(filesOf(root())).isEmpty();
  }

  @Test
  void aTornOrMismatchedSidecarHidesItsArchiveFromTheListing() throws Exception {
    FilesystemArchiveStore store = store();
    for (long g = 1; g <= 6; g++) {
      commit(store, session, g, bytes(14 + g, 100));
    }
    ArchiveRef sound = commit(store, session, 7, bytes(21, 100));
    String good = Files.readString(sessionDir().resolve("1.json"));
    Files.writeString(sessionDir().resolve("1.json"), good.substring(0, good.length() / 2));
    rewrite(2, s -> s.replace("\"sizeBytes\":100", "\"sizeBytes\":99"));
    rewrite(3, s -> s.replace("\"generation\":3", "\"generation\":4"));
    rewrite(4, s -> s.replace(session.value(), TestSessions.newId().value()));
    rewrite(5, s -> s.replace("\"format\":1", "\"format\":2"));
    rewrite(6, s -> s.replace("}", ",\"extra\":true}"));

    assertThat(store.list(session)).containsExactly(sound);
    assertThat(store().list(session)).containsExactly(sound);
    assertThat(filesOf(sessionDir())).hasSize(14);
  }

  private void rewrite(long generation, java.util.function.UnaryOperator<String> edit)
      throws IOException {
    Path sidecar = sessionDir().resolve(generation + ".json");
    String before = Files.readString(sidecar);
    String after = edit.apply(before);
    assertThat(after).isNotEqualTo(before);
    Files.writeString(sidecar, after);
  }

  // ---- sweep ----------------------------------------------------------------------------------

  @Test
  void sweepRemovesLeftoversOfOthersButSparesItsOwnUploadsInFlight() throws Exception {
    FilesystemArchiveStore store = store();
    Files.createDirectories(sessionDir());
    Files.write(sessionDir().resolve(".upload-9-123.tmp"), bytes(22, 10));
    Files.write(sessionDir().resolve(".upload-9-124.json.tmp"), bytes(23, 10));
    Path stranger = root().resolve("README");
    Files.writeString(stranger, "not ours");
    Path note = sessionDir().resolve("notes.txt");
    Files.writeString(note, "not ours either");

    try (ArchiveUpload upload = store.begin(session, 1)) {
      upload.stream().write(bytes(24, 1000));

      assertThat(store.sweep()).isEqualTo(2);

      ArchiveRef ref = upload.commit(CONTENTS);
      assertThat(store.list(session)).containsExactly(ref);
    }
    assertThat(filesOf(sessionDir())).containsExactly("1.json", "1.tar.zst", "notes.txt");
    assertThat(stranger).exists();
  }
}
