package dev.berth.archive.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.berth.core.archive.ArchiveUpload;
import dev.berth.core.digest.Sha256;
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
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.model.ChecksumMode;
import software.amazon.awssdk.services.s3.model.MultipartUpload;
import software.amazon.awssdk.services.s3.model.Part;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * What the S3 store does in its bucket where the contract cannot look: the objects it writes, the
 * checksums it sends, the states a crash leaves, and which leftovers a sweep may take when replicas
 * share the bucket.
 */
class S3ArchiveStoreObjectsTest {
  private static final List<String> CONTENTS = List.of("home", "output");
  private static final String A = "replica-a";
  private static final String B = "replica-b";

  private final S3TestServer server = S3TestServer.get();
  private final String prefix = S3TestServer.freshPrefix();
  private final MutableClock clock = MutableClock.at("2026-11-29T10:00:00Z");
  private final SessionId session = TestSessions.newId();

  private S3ArchiveStore store(String owner) {
    return new S3ArchiveStore(server.client(), server.settings(prefix), owner, clock);
  }

  private S3ArchiveStore crashingAt(String point, Runnable before) {
    Failpoints failpoints =
        name -> {
          if (name.equals(point)) {
            before.run();
            throw new SimulatedCrash(name);
          }
        };
    return new S3ArchiveStore(server.client(), server.settings(prefix), A, clock, failpoints);
  }

  private BucketContents contents() {
    return BucketContents.of(server.client(), prefix);
  }

  private static byte[] bytes(long seed, int size) {
    byte[] data = new byte[size];
    new SplittableRandom(seed).nextBytes(data);
    return data;
  }

  private static ArchiveRef commit(S3ArchiveStore store, SessionId session, long g, byte[] data)
      throws IOException {
    try (ArchiveUpload upload = store.begin(session, g)) {
      upload.stream().write(data);
      return upload.commit(CONTENTS);
    }
  }

  // ---- layout ---------------------------------------------------------------------------------

  @Test
  void anArchiveIsItsMarkerAndOneDataObjectNamedForItsOwnerInItsSessionFolder() throws Exception {
    ArchiveRef ref = commit(store(A), session, 3, bytes(1, 4096));

    assertThat(contents().keys())
        .hasSize(2)
        .contains(session.value() + "/3.json")
        .anyMatch(k -> k.matches(session.value() + "/3\\.replica-a\\.[0-9a-f]{32}\\.tar\\.zst"));
    assertThat(ref.uri()).isEqualTo("s3://" + S3TestServer.BUCKET + "/" + prefix + session + "/3");
    String marker =
        server
            .client()
            .getObjectAsBytes(b -> b.bucket(S3TestServer.BUCKET).key(prefix + session + "/3.json"))
            .asUtf8String();
    assertThat(marker)
        .contains("\"format\":1")
        .contains("\"sha256\":\"" + ref.sha256() + "\"")
        .contains("\"sizeBytes\":4096")
        .contains("\"createdAt\":\"2026-11-29T10:00:00Z\"");
  }

  @Test
  void anArchiveGoesUpInWholePartsWhoseSha256sMakeTheObjectsCompositeChecksum() throws Exception {
    S3ArchiveStore store = store(A);
    int part = S3ArchiveSettings.DEFAULT_PART_SIZE;
    byte[] data = bytes(2, 2 * part + 1000);
    try (ArchiveUpload upload = store.begin(session, 1)) {
      upload.stream().write(data);

      MultipartUpload inFlight = contents().uploads().getFirst();
      List<Part> parts =
          server
              .client()
              .listParts(
                  b ->
                      b.bucket(S3TestServer.BUCKET)
                          .key(inFlight.key())
                          .uploadId(inFlight.uploadId()))
              .parts();
      assertThat(parts).extracting(Part::size).containsExactly((long) part, (long) part);
      upload.commit(CONTENTS);
    }

    String key = prefix + contents().data().getFirst();
    String checksum =
        server
            .client()
            .headObject(
                b -> b.bucket(S3TestServer.BUCKET).key(key).checksumMode(ChecksumMode.ENABLED))
            .checksumSHA256();
    assertThat(checksum).isEqualTo(composite(data, part));
  }

  /** S3's checksum of a multipart object: the SHA-256 of its parts' SHA-256s, and their count. */
  private static String composite(byte[] data, int part) {
    MessageDigest ofParts = Sha256.newDigest();
    int count = 0;
    for (int off = 0; off < data.length; off += part, count++) {
      ofParts.update(Sha256.of(Arrays.copyOfRange(data, off, Math.min(data.length, off + part))));
    }
    return Base64.getEncoder().encodeToString(ofParts.digest()) + "-" + count;
  }

  @Test
  void aPartWhoseBytesDoNotMatchItsChecksumIsRefusedByTheServer() {
    String key = prefix + session + "/1." + A + "." + "0".repeat(32) + ".tar.zst";
    Bucket bucket = new Bucket(server.client(), S3TestServer.BUCKET);
    String uploadId = bucket.startUpload(key);
    byte[] sent = bytes(3, 1000);
    String wrong = Bucket.sha256(bytes(4, 1000), 1000);

    assertThatThrownBy(
            () ->
                server
                    .client()
                    .uploadPart(
                        b ->
                            b.bucket(S3TestServer.BUCKET)
                                .key(key)
                                .uploadId(uploadId)
                                .partNumber(1)
                                .checksumSHA256(wrong),
                        RequestBody.fromBytes(sent)))
        .isInstanceOf(S3Exception.class);
    bucket.abortUpload(key, uploadId);
  }

  // ---- crashes --------------------------------------------------------------------------------

  @Test
  void aCrashAfterTheDataIsWholeButBeforeItsMarkerLeavesNothingListedAndTheRestartSweepsIt()
      throws Exception {
    ArchiveRef kept = commit(store(A), session, 1, bytes(5, 100));
    ArchiveUpload upload = crashingAt("archive.commit.completed", () -> {}).begin(session, 2);
    upload.stream().write(bytes(6, 200_000));

    assertThatThrownBy(() -> upload.commit(CONTENTS)).isInstanceOf(SimulatedCrash.class);
    assertThat(store(B).list(session)).containsExactly(kept);
    assertThat(contents().data()).hasSize(2);
    assertThat(contents().markers()).containsExactly(session + "/1.json");

    S3ArchiveStore restarted = store(A);

    assertThat(contents().leftovers()).isZero();
    assertThat(contents().keys()).hasSize(2);
    assertThat(restarted.list(session)).containsExactly(kept);
    ArchiveRef again = commit(restarted, session, 2, bytes(7, 10));
    assertThat(restarted.list(session)).containsExactly(kept, again);
  }

  @Test
  void aCrashInTheMiddleOfADeleteHidesTheArchiveAndTheRestartSweepsItsData() throws Exception {
    ArchiveRef ref = commit(store(A), session, 1, bytes(8, 100));

    assertThatThrownBy(() -> crashingAt("archive.delete.unmarked", () -> {}).delete(ref))
        .isInstanceOf(SimulatedCrash.class);
    assertThat(store(B).list(session)).isEmpty();
    assertThatThrownBy(() -> store(B).open(ref)).isInstanceOf(NotFoundException.class);
    assertThat(contents().data()).hasSize(1);

    store(A);

    assertThat(contents().keys()).isEmpty();
  }

  // ---- immutability ---------------------------------------------------------------------------

  @Test
  void ofTwoCommitsThatBothPassTheCheckTheConditionalMarkerLetsOnlyTheFirstWin() throws Exception {
    S3ArchiveStore store = store(A);
    byte[] winner = bytes(9, 1000);
    ArchiveUpload first = store.begin(session, 1);
    first.stream().write(winner);
    ArchiveRef[] won = new ArchiveRef[1];
    // The second upload's data is whole and its check passed; the first commits just then.
    Failpoints race =
        name -> {
          if (name.equals("archive.commit.completed") && won[0] == null) {
            won[0] = first.commit(CONTENTS);
          }
        };
    S3ArchiveStore racing =
        new S3ArchiveStore(server.client(), server.settings(prefix), B, clock, race);
    try (ArchiveUpload second = racing.begin(session, 1)) {
      second.stream().write(bytes(10, 2000));

      assertThatThrownBy(() -> second.commit(CONTENTS))
          .isInstanceOf(AlreadyExistsException.class)
          .hasMessageContaining("generation 1");
    }

    assertThat(store.list(session)).containsExactly(won[0]);
    try (InputStream in = store.open(won[0])) {
      assertThat(in.readAllBytes()).isEqualTo(winner);
    }
    assertThat(contents().leftovers()).isZero();
    assertThat(contents().keys()).hasSize(2);
  }

  @Test
  void anOldRefOfAGenerationCommittedAgainNeitherReadsNorDeletesTheNewArchive() throws Exception {
    S3ArchiveStore store = store(A);
    ArchiveRef old = commit(store, session, 1, bytes(11, 100));
    store.delete(old);
    ArchiveRef fresh = commit(store, session, 1, bytes(12, 100));

    assertThatThrownBy(() -> store.open(old)).isInstanceOf(NotFoundException.class);
    store.delete(old);

    assertThat(store.list(session)).containsExactly(fresh);
  }

  @Test
  void aRefOfAnotherBucketOrPrefixIsNotInTheStore() throws Exception {
    S3ArchiveStore store = store(A);
    ArchiveRef real = commit(store, session, 1, bytes(13, 100));
    S3ArchiveStore elsewhere =
        new S3ArchiveStore(server.client(), server.settings(S3TestServer.freshPrefix()), A, clock);

    assertThatThrownBy(() -> elsewhere.open(real)).isInstanceOf(NotFoundException.class);
    elsewhere.delete(real);
    for (String uri :
        List.of(
            "s3://other-bucket/" + prefix + session + "/1",
            "s3://" + S3TestServer.BUCKET + "/" + prefix + session + "/01",
            "s3://" + S3TestServer.BUCKET + "/" + prefix + session + "/../1",
            "archive://" + session + "/1")) {
      ArchiveRef foreign =
          new ArchiveRef(1, uri, real.sizeBytes(), real.sha256(), real.createdAt(), CONTENTS);
      assertThatThrownBy(() -> store.open(foreign)).as(uri).isInstanceOf(NotFoundException.class);
      store.delete(foreign);
    }
    assertThat(store.list(session)).containsExactly(real);
  }

  // ---- sweeping a shared bucket ---------------------------------------------------------------

  @Test
  void aStoreStartingBesideAnotherReplicaSparesItsUploadInFlight() throws Exception {
    S3ArchiveStore a = store(A);
    byte[] data = bytes(14, 300_000);
    try (ArchiveUpload upload = a.begin(session, 1)) {
      upload.stream().write(data);

      S3ArchiveStore b = store(B);

      assertThat(b.sweep()).isZero();
      assertThat(contents().uploads()).hasSize(1);
      ArchiveRef ref = upload.commit(CONTENTS);
      assertThat(b.list(session)).containsExactly(ref);
    }
  }

  @Test
  void anotherReplicasLeftoversAreSweptOnlyOnceTheyAreStale() throws Exception {
    ArchiveUpload crashed = crashingAt("archive.commit.completed", () -> {}).begin(session, 2);
    crashed.stream().write(bytes(16, 100));
    assertThatThrownBy(() -> crashed.commit(CONTENTS)).isInstanceOf(SimulatedCrash.class);
    ArchiveUpload abandoned = store("replica-c").begin(session, 1);
    abandoned.stream().write(bytes(15, 100));
    S3ArchiveStore b = store(B);
    assertThat(contents().leftovers()).isEqualTo(2);

    clock.set(Instant.now().plus(S3ArchiveSettings.DEFAULT_STALE_AFTER).plusSeconds(60));

    assertThat(b.sweep()).isEqualTo(2);
    assertThat(contents().keys()).isEmpty();
    assertThat(contents().uploads()).isEmpty();
  }

  @Test
  void aSweepSparesItsOwnUploadsInFlightAndObjectsOfAnotherLayout() throws Exception {
    S3ArchiveStore store = store(A);
    server
        .client()
        .putObject(
            b -> b.bucket(S3TestServer.BUCKET).key(prefix + "README"), RequestBody.fromString("x"));
    server
        .client()
        .putObject(
            b -> b.bucket(S3TestServer.BUCKET).key(prefix + session + "/notes.tar.zst"),
            RequestBody.fromString("x"));
    clock.advance(Duration.ofDays(400));
    try (ArchiveUpload upload = store.begin(session, 1)) {
      upload.stream().write(bytes(17, 1000));

      assertThat(store.sweep()).isZero();

      ArchiveRef ref = upload.commit(CONTENTS);
      assertThat(store.list(session)).containsExactly(ref);
    }
    assertThat(contents().keys()).contains("README", session + "/notes.tar.zst").hasSize(4);
  }
}
