package dev.berth.core.archive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.berth.core.error.AlreadyExistsException;
import dev.berth.core.error.NotFoundException;
import dev.berth.core.session.ArchiveRef;
import dev.berth.core.session.SessionId;
import dev.berth.core.testing.MutableClock;
import dev.berth.core.testing.TestSessions;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The contract every {@link ArchiveStore} adapter must pass, unchanged: an adapter's test extends
 * this class and says how to build its store, how to reopen it after a crash, and how to count the
 * leftovers of unfinished uploads in its place (directory, bucket).
 *
 * <p>What the contract fixes beyond the port's javadoc:
 *
 * <ul>
 *   <li>Committed archives are immutable. Committing a generation that exists is refused with
 *       {@link AlreadyExistsException} (at {@code begin} or at {@code commit}) and leaves the
 *       committed archive as it was, so a ref recorded in the session store never changes under its
 *       digest. Once deleted, a generation may be committed again.
 *   <li>The stream of an upload may be closed before commit (tar and zstd writers close what they
 *       wrap); the bytes written stay part of the upload.
 *   <li>An upload is used by one thread; different uploads and readers run concurrently.
 *   <li>A crash during an upload leaves nothing visible, and a store opened on the same place after
 *       the crash removes the leftovers: a new process owns no upload in flight.
 * </ul>
 */
public abstract class ArchiveStoreContract {
  private static final List<String> CONTENTS = List.of("home", "output", "shell-state");
  private static final int CHUNK = 64 * 1024;

  protected MutableClock clock;
  protected ArchiveStore store;
  private ExecutorService pool;

  /** A fresh, empty store in a fresh place, stamping commits with {@code clock}. */
  protected abstract ArchiveStore newStore(MutableClock clock) throws Exception;

  /**
   * A new store instance on the place of the last store built, as a process restarted after a crash
   * would open it. The earlier instance is abandoned, never closed.
   */
  protected abstract ArchiveStore restartStore(MutableClock clock) throws Exception;

  /** How many leftovers of unfinished uploads (temporary files, staged parts) the place holds. */
  protected abstract long leftovers() throws Exception;

  @BeforeEach
  void setUpStore() throws Exception {
    clock = MutableClock.at("2026-11-29T10:00:00.123456789Z");
    store = newStore(clock);
    pool = Executors.newFixedThreadPool(2);
  }

  @AfterEach
  void tearDownStore() {
    pool.shutdownNow();
  }

  // ---- visibility and commit ------------------------------------------------------------------

  @Test
  void aWritableStorePassesTheWriteCheckWhichLeavesNothingBehind() throws Exception {
    SessionId session = TestSessions.newId();
    try (ArchiveUpload upload = store.begin(session, 1)) {
      upload.stream().write(bytes(1, 10));
      upload.commit(CONTENTS);
    }

    store.checkWritable();
    store.checkWritable();

    assertThat(store.list(session)).hasSize(1);
    assertThat(leftovers()).isZero();
    assertThat(restartStore(clock).list(session)).hasSize(1);
  }

  @Test
  void anUploadIsInvisibleUntilItIsCommitted() throws Exception {
    SessionId session = TestSessions.newId();
    try (ArchiveUpload upload = store.begin(session, 1)) {
      upload.stream().write(bytes(1, 10_000));
      upload.stream().flush();
      assertThat(store.list(session)).isEmpty();

      ArchiveRef ref = upload.commit(CONTENTS);

      assertThat(store.list(session)).containsExactly(ref);
    }
  }

  @Test
  void commitReturnsTheSizeDigestGenerationContentsAndCommitTime() throws Exception {
    SessionId session = TestSessions.newId();
    byte[] data = bytes(2, 100_003);
    ArchiveRef ref;
    try (ArchiveUpload upload = store.begin(session, 7)) {
      upload.stream().write(data);
      Instant committedAt = clock.advance(Duration.ofSeconds(42));
      ref = upload.commit(CONTENTS);
      assertThat(ref.createdAt()).isEqualTo(committedAt);
    }
    assertThat(ref.generation()).isEqualTo(7);
    assertThat(ref.sizeBytes()).isEqualTo(data.length);
    assertThat(ref.sha256()).isEqualTo(sha256(data)).matches("[0-9a-f]{64}");
    assertThat(ref.contents()).containsExactlyElementsOf(CONTENTS);
    assertThat(ref.uri()).isNotBlank();
  }

  @Test
  void listDescribesAnArchiveExactlyAsCommitDid() throws Exception {
    SessionId session = TestSessions.newId();
    ArchiveRef ref = commit(session, 3, bytes(3, 5_000), List.of("output", "home"));

    assertThat(store.list(session)).containsExactly(ref);
  }

  @Test
  void openReturnsExactlyTheCommittedBytes() throws Exception {
    SessionId session = TestSessions.newId();
    byte[] data = bytes(4, 1_000_001);
    ArchiveRef ref = commit(session, 1, data, CONTENTS);

    try (InputStream in = store.open(ref)) {
      assertThat(in.readAllBytes()).isEqualTo(data);
    }
  }

  @Test
  void anEmptyArchiveCanBeCommittedAndRead() throws Exception {
    SessionId session = TestSessions.newId();
    ArchiveRef ref = commit(session, 1, new byte[0], List.of());

    assertThat(ref.sizeBytes()).isZero();
    assertThat(ref.sha256()).isEqualTo(sha256(new byte[0]));
    assertThat(ref.contents()).isEmpty();
    try (InputStream in = store.open(ref)) {
      assertThat(in.readAllBytes()).isEmpty();
    }
  }

  @Test
  void bytesWrittenOneAtATimeAndInSlicesAllCount() throws Exception {
    SessionId session = TestSessions.newId();
    byte[] data = bytes(5, 300);
    ArchiveRef ref;
    try (ArchiveUpload upload = store.begin(session, 1)) {
      upload.stream().write(data[0]);
      upload.stream().write(data, 1, 99);
      upload.stream().write(data, 100, 200);
      ref = upload.commit(CONTENTS);
    }
    assertThat(ref.sizeBytes()).isEqualTo(300);
    assertThat(ref.sha256()).isEqualTo(sha256(data));
    try (InputStream in = store.open(ref)) {
      assertThat(in.readAllBytes()).isEqualTo(data);
    }
  }

  @Test
  void closingTheStreamBeforeCommitKeepsItsBytesInTheUpload() throws Exception {
    SessionId session = TestSessions.newId();
    byte[] data = bytes(6, 20_000);
    ArchiveRef ref;
    try (ArchiveUpload upload = store.begin(session, 1)) {
      try (OutputStream out = upload.stream()) {
        out.write(data);
      }
      ref = upload.commit(CONTENTS);
    }
    assertThat(ref.sizeBytes()).isEqualTo(data.length);
    try (InputStream in = store.open(ref)) {
      assertThat(in.readAllBytes()).isEqualTo(data);
    }
  }

  @Test
  void anUploadCommitsOnlyOnceAndNotAfterItWasClosed() throws Exception {
    SessionId session = TestSessions.newId();
    try (ArchiveUpload upload = store.begin(session, 1)) {
      upload.stream().write(bytes(7, 10));
      ArchiveRef ref = upload.commit(CONTENTS);
      assertThatThrownBy(() -> upload.commit(CONTENTS)).isInstanceOf(IllegalStateException.class);
      assertThat(store.list(session)).containsExactly(ref);
    }
    ArchiveUpload closed = store.begin(session, 2);
    closed.close();
    assertThatThrownBy(() -> closed.commit(CONTENTS)).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> closed.stream().write(1)).isInstanceOf(IOException.class);
    assertThat(store.list(session)).extracting(ArchiveRef::generation).containsExactly(1L);
  }

  @Test
  void beginRejectsAGenerationBelowOne() {
    SessionId session = TestSessions.newId();
    assertThatThrownBy(() -> store.begin(session, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("generation");
  }

  // ---- abort ----------------------------------------------------------------------------------

  @Test
  void closingAnUncommittedUploadLeavesNoTrace() throws Exception {
    SessionId session = TestSessions.newId();
    store.begin(session, 1).close();

    assertThat(store.list(session)).isEmpty();
    assertThat(leftovers()).isZero();
  }

  @Test
  void closingAnUploadAfterBytesWereWrittenLeavesNoTrace() throws Exception {
    SessionId session = TestSessions.newId();
    try (ArchiveUpload upload = store.begin(session, 1)) {
      upload.stream().write(bytes(8, 300_000));
      upload.stream().flush();
    }

    assertThat(store.list(session)).isEmpty();
    assertThat(leftovers()).isZero();
    ArchiveRef again = commit(session, 1, bytes(9, 10), CONTENTS);
    assertThat(store.list(session)).containsExactly(again);
  }

  @Test
  void closingACommittedUploadKeepsTheArchive() throws Exception {
    SessionId session = TestSessions.newId();
    byte[] data = bytes(10, 1000);
    ArchiveRef ref = commit(session, 1, data, CONTENTS);

    assertThat(store.list(session)).containsExactly(ref);
    assertThat(leftovers()).isZero();
    try (InputStream in = store.open(ref)) {
      assertThat(in.readAllBytes()).isEqualTo(data);
    }
  }

  // ---- atomicity ------------------------------------------------------------------------------

  @Test
  void aReaderNeverSeesAPartialArchive() throws Exception {
    SessionId session = TestSessions.newId();
    int size = 8 * 1024 * 1024;
    byte[] data = bytes(11, size);
    String digest = sha256(data);
    AtomicBoolean stop = new AtomicBoolean();
    CountDownLatch sawNothingMidUpload = new CountDownLatch(20);
    AtomicBoolean uploading = new AtomicBoolean(true);
    AtomicInteger fullReads = new AtomicInteger();
    Future<?> reader =
        pool.submit(
            () -> {
              while (!stop.get()) {
                boolean midUpload = uploading.get();
                List<ArchiveRef> seen = store.list(session);
                if (seen.isEmpty()) {
                  if (midUpload) {
                    sawNothingMidUpload.countDown();
                  }
                  continue;
                }
                ArchiveRef ref = seen.getFirst();
                assertThat(seen).hasSize(1);
                assertThat(ref.sizeBytes()).isEqualTo(size);
                assertThat(ref.sha256()).isEqualTo(digest);
                try (InputStream in = store.open(ref)) {
                  assertThat(drain(in)).isEqualTo(new Drained(size, digest));
                } catch (IOException e) {
                  throw new UncheckedIOException(e);
                }
                fullReads.incrementAndGet();
              }
              return null;
            });

    try (ArchiveUpload upload = store.begin(session, 1)) {
      upload.stream().write(data, 0, size / 2);
      upload.stream().flush();
      assertThat(sawNothingMidUpload.await(30, TimeUnit.SECONDS))
          .as("the reader polled while half the archive was written")
          .isTrue();
      for (int off = size / 2; off < size; off += CHUNK) {
        upload.stream().write(data, off, Math.min(CHUNK, size - off));
      }
      upload.commit(CONTENTS);
      uploading.set(false);
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (fullReads.get() < 3 && System.nanoTime() < deadline && !reader.isDone()) {
      Thread.onSpinWait();
    }
    stop.set(true);
    reader.get(30, TimeUnit.SECONDS);
    assertThat(fullReads.get()).as("complete reads after the commit").isGreaterThanOrEqualTo(3);
  }

  @Test
  void uploadsOfDifferentSessionsAndGenerationsRunSideBySide() throws Exception {
    SessionId a = TestSessions.newId();
    SessionId b = TestSessions.newId();
    byte[] a1 = bytes(12, 70_000);
    byte[] a2 = bytes(13, 50_000);
    byte[] b1 = bytes(14, 60_000);
    ArchiveRef refA1;
    ArchiveRef refA2;
    ArchiveRef refB1;
    try (ArchiveUpload upA1 = store.begin(a, 1);
        ArchiveUpload upA2 = store.begin(a, 2);
        ArchiveUpload upB1 = store.begin(b, 1)) {
      for (int off = 0; off < 70_000; off += 10_000) {
        upA1.stream().write(a1, off, Math.min(10_000, a1.length - off));
        if (off < a2.length) {
          upA2.stream().write(a2, off, Math.min(10_000, a2.length - off));
        }
        if (off < b1.length) {
          upB1.stream().write(b1, off, Math.min(10_000, b1.length - off));
        }
      }
      refA2 = upA2.commit(CONTENTS);
      refB1 = upB1.commit(CONTENTS);
      refA1 = upA1.commit(CONTENTS);
    }

    assertThat(store.list(a)).containsExactly(refA1, refA2);
    assertThat(store.list(b)).containsExactly(refB1);
    assertThat(read(refA1)).isEqualTo(a1);
    assertThat(read(refA2)).isEqualTo(a2);
    assertThat(read(refB1)).isEqualTo(b1);
    assertThat(leftovers()).isZero();
  }

  // ---- listing --------------------------------------------------------------------------------

  @Test
  void generationsOfASessionAreListedOldestFirst() throws Exception {
    SessionId session = TestSessions.newId();
    ArchiveRef g10 = commit(session, 10, bytes(15, 10), CONTENTS);
    ArchiveRef g2 = commit(session, 2, bytes(16, 20), CONTENTS);
    ArchiveRef g1 = commit(session, 1, bytes(17, 30), CONTENTS);

    assertThat(store.list(session)).containsExactly(g1, g2, g10);
  }

  @Test
  void sessionsDoNotSeeEachOthersArchives() throws Exception {
    SessionId a = TestSessions.newId();
    SessionId b = TestSessions.newId();
    ArchiveRef refA = commit(a, 1, bytes(18, 100), CONTENTS);
    ArchiveRef refB = commit(b, 1, bytes(19, 200), CONTENTS);

    assertThat(refA.uri()).isNotEqualTo(refB.uri());
    assertThat(store.list(a)).containsExactly(refA);
    assertThat(store.list(b)).containsExactly(refB);
    assertThat(store.list(TestSessions.newId())).isEmpty();
    store.delete(refA);
    assertThat(store.list(b)).containsExactly(refB);
    assertThat(read(refB)).isEqualTo(bytes(19, 200));
  }

  // ---- delete ---------------------------------------------------------------------------------

  @Test
  void deleteRemovesTheArchiveAndOpenThenAnswersNotFound() throws Exception {
    SessionId session = TestSessions.newId();
    ArchiveRef first = commit(session, 1, bytes(20, 100), CONTENTS);
    ArchiveRef second = commit(session, 2, bytes(21, 100), CONTENTS);

    store.delete(first);

    assertThat(store.list(session)).containsExactly(second);
    assertThatThrownBy(() -> store.open(first))
        .isInstanceOf(NotFoundException.class)
        .hasMessageContaining(first.uri());
    assertThat(read(second)).isEqualTo(bytes(21, 100));
  }

  @Test
  void deletingAMissingArchiveDoesNothing() throws Exception {
    SessionId session = TestSessions.newId();
    ArchiveRef ref = commit(session, 1, bytes(22, 100), CONTENTS);
    store.delete(ref);

    store.delete(ref);

    assertThat(store.list(session)).isEmpty();
    ArchiveRef foreign =
        new ArchiveRef(
            1, "nowhere://" + session, 1, sha256(new byte[1]), clock.instant(), CONTENTS);
    store.delete(foreign);
    assertThatThrownBy(() -> store.open(foreign)).isInstanceOf(NotFoundException.class);
  }

  @Test
  void aDeletedGenerationCanBeCommittedAgain() throws Exception {
    SessionId session = TestSessions.newId();
    ArchiveRef old = commit(session, 1, bytes(23, 100), CONTENTS);
    store.delete(old);

    ArchiveRef again = commit(session, 1, bytes(24, 50), List.of("home"));

    assertThat(store.list(session)).containsExactly(again);
    assertThat(read(again)).isEqualTo(bytes(24, 50));
  }

  // ---- same generation twice -----------------------------------------------------------------

  @Test
  void committingAGenerationThatExistsIsRefusedAndLeavesTheFirstIntact() throws Exception {
    SessionId session = TestSessions.newId();
    byte[] first = bytes(25, 1000);
    ArchiveRef ref = commit(session, 1, first, CONTENTS);

    assertThatThrownBy(() -> commit(session, 1, bytes(26, 2000), List.of("home")))
        .isInstanceOf(AlreadyExistsException.class)
        .hasMessageContaining("generation 1");

    assertThat(store.list(session)).containsExactly(ref);
    assertThat(read(ref)).isEqualTo(first);
    assertThat(leftovers()).isZero();
  }

  @Test
  void ofTwoUploadsOfOneGenerationOnlyTheFirstCommitWins() throws Exception {
    SessionId session = TestSessions.newId();
    byte[] winner = bytes(27, 1000);
    ArchiveUpload one = store.begin(session, 1);
    ArchiveUpload two = store.begin(session, 1);
    try (one;
        two) {
      one.stream().write(winner);
      two.stream().write(bytes(28, 1000));
      ArchiveRef ref = one.commit(CONTENTS);

      assertThatThrownBy(() -> two.commit(CONTENTS)).isInstanceOf(AlreadyExistsException.class);
      assertThat(store.list(session)).containsExactly(ref);
      assertThat(read(ref)).isEqualTo(winner);
    }
    assertThat(leftovers()).isZero();
  }

  // ---- size -----------------------------------------------------------------------------------

  @Test
  void aLargeArchiveIsStreamedInAndOut() throws Exception {
    SessionId session = TestSessions.newId();
    long size = 64L * 1024 * 1024;
    MessageDigest written = sha256();
    SplittableRandom random = new SplittableRandom(29);
    byte[] chunk = new byte[CHUNK];
    ArchiveRef ref;
    try (ArchiveUpload upload = store.begin(session, 1)) {
      for (long done = 0; done < size; done += CHUNK) {
        random.nextBytes(chunk);
        written.update(chunk);
        upload.stream().write(chunk);
      }
      ref = upload.commit(CONTENTS);
    }
    String digest = HexFormat.of().formatHex(written.digest());

    assertThat(ref.sizeBytes()).isEqualTo(size);
    assertThat(ref.sha256()).isEqualTo(digest);
    try (InputStream in = store.open(ref)) {
      assertThat(drain(in)).isEqualTo(new Drained(size, digest));
    }
  }

  // ---- crash and restart ----------------------------------------------------------------------

  @Test
  void anUploadInterruptedByACrashLeavesNothingVisibleAndIsSweptOnRestart() throws Exception {
    SessionId session = TestSessions.newId();
    ArchiveRef kept = commit(session, 1, bytes(30, 100), CONTENTS);
    ArchiveUpload interrupted = store.begin(session, 2);
    interrupted.stream().write(bytes(31, 500_000));
    interrupted.stream().flush();
    assertThat(leftovers()).isPositive();

    ArchiveStore restarted = restartStore(clock);

    assertThat(restarted.list(session)).containsExactly(kept);
    assertThat(leftovers()).isZero();
    try (ArchiveUpload upload = restarted.begin(session, 2)) {
      upload.stream().write(bytes(32, 10));
      ArchiveRef again = upload.commit(CONTENTS);
      assertThat(restarted.list(session)).containsExactly(kept, again);
    }
  }

  @Test
  void committedArchivesSurviveARestart() throws Exception {
    SessionId session = TestSessions.newId();
    byte[] data = bytes(33, 12_345);
    ArchiveRef ref = commit(session, 4, data, CONTENTS);

    ArchiveStore restarted = restartStore(clock);

    assertThat(restarted.list(session)).containsExactly(ref);
    try (InputStream in = restarted.open(ref)) {
      assertThat(in.readAllBytes()).isEqualTo(data);
    }
    restarted.delete(ref);
    assertThat(restarted.list(session)).isEmpty();
  }

  // ---- helpers --------------------------------------------------------------------------------

  private ArchiveRef commit(SessionId session, long generation, byte[] data, List<String> contents)
      throws IOException {
    try (ArchiveUpload upload = store.begin(session, generation)) {
      upload.stream().write(data);
      return upload.commit(contents);
    }
  }

  private byte[] read(ArchiveRef ref) throws IOException {
    try (InputStream in = store.open(ref)) {
      return in.readAllBytes();
    }
  }

  /** Deterministic test bytes: the same seed and size give the same bytes. */
  protected static byte[] bytes(long seed, int size) {
    byte[] data = new byte[size];
    new SplittableRandom(seed).nextBytes(data);
    return data;
  }

  /** What a reader got out of a stream: how many bytes, and their SHA-256. */
  protected record Drained(long size, String sha256) {}

  /** Reads {@code in} to its end in chunks, never holding it whole. */
  protected static Drained drain(InputStream in) throws IOException {
    MessageDigest digest = sha256();
    byte[] buffer = new byte[CHUNK];
    long size = 0;
    for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
      digest.update(buffer, 0, n);
      size += n;
    }
    return new Drained(size, HexFormat.of().formatHex(digest.digest()));
  }

  protected static String sha256(byte[] data) {
    return HexFormat.of().formatHex(sha256().digest(data));
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required of every JDK", e);
    }
  }

  @Test
  void theStoreEpochMarkKeepsTheHighestRecordedAcrossARestart() throws Exception {
    assertThat(store.storeEpochSeen()).isZero();

    store.recordStoreEpoch(7);
    store.recordStoreEpoch(3);
    assertThat(store.storeEpochSeen()).isEqualTo(7);

    ArchiveStore restarted = restartStore(clock);
    assertThat(restarted.storeEpochSeen()).isEqualTo(7);
    restarted.recordStoreEpoch(9);
    assertThat(restarted.storeEpochSeen()).isEqualTo(9);
    assertThat(restarted.list(TestSessions.newId())).isEmpty();
  }
}
