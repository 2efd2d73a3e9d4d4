package dev.berth.archive.s3;

import dev.berth.archive.s3.ArchiveKeys.Location;
import dev.berth.archive.s3.ArchiveKeys.MarkerEntry;
import dev.berth.core.archive.ArchiveStore;
import dev.berth.core.archive.ArchiveUpload;
import dev.berth.core.error.AlreadyExistsException;
import dev.berth.core.error.NotFoundException;
import dev.berth.core.lifecycle.Failpoints;
import dev.berth.core.session.ArchiveRef;
import dev.berth.core.session.SessionId;
import java.io.InputStream;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Session archives in an S3 bucket (AWS, or an S3-compatible server), under a key prefix. The
 * layout, the commit order, immutability and the sweep rule are in the {@linkplain
 * dev.berth.archive.s3 package documentation}.
 *
 * <p>References are {@code s3://<bucket>/<prefix><session>/<generation>}; {@link #open} and {@link
 * #delete} go by the uri, and a uri of another form, bucket or prefix is not in this store. They
 * also go by the digest: a ref whose size and SHA-256 are not those of the generation's marker (the
 * generation was deleted and committed again) is not found, and deleting it does nothing, so an old
 * ref can neither read nor delete the new archive.
 *
 * <p>Thread-safe: uploads run side by side (each used by one thread), and the only state shared
 * between them is the set of this instance's uploads in flight, which a {@link #sweep} spares.
 */
public final class S3ArchiveStore implements ArchiveStore, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(S3ArchiveStore.class);
  private static final SecureRandom TOKENS = new SecureRandom();

  private final Bucket bucket;
  private final ArchiveKeys keys;
  private final String owner;
  private final InstantSource clock;
  private final Failpoints failpoints;
  private final EpochMarkObjects epochMark;
  private final int partSize;
  private final Duration staleAfter;
  private final @Nullable S3Client owned;

  /** Data keys of this instance's uploads in flight. */
  private final Set<String> inFlight = ConcurrentHashMap.newKeySet();

  /** Markers that could not be read and were logged already. */
  private final Set<String> reported = ConcurrentHashMap.newKeySet();

  /**
   * A store on {@code settings}' bucket through {@code client} (which the caller closes), writing
   * as {@code owner}; sweeps the leftovers that the rule lets it remove.
   *
   * @param owner who this store instance is among the processes that share the bucket: unique among
   *     those running, and the same after a restart of one of them (a pod or host name), see the
   *     package documentation; letters, digits, {@code _} and {@code -}, at most 64
   */
  public S3ArchiveStore(
      S3Client client, S3ArchiveSettings settings, String owner, InstantSource clock) {
    this(client, settings, owner, clock, Failpoints.NONE, false);
  }

  /**
   * As {@link #S3ArchiveStore(S3Client, S3ArchiveSettings, String, InstantSource)}, with crash
   * points for tests: {@code archive.commit.completed} (the data object is whole, its marker not
   * written) and {@code archive.delete.unmarked} (the marker is gone, the data object not).
   */
  public S3ArchiveStore(
      S3Client client,
      S3ArchiveSettings settings,
      String owner,
      InstantSource clock,
      Failpoints failpoints) {
    this(client, settings, owner, clock, failpoints, false);
  }

  private S3ArchiveStore(
      S3Client client,
      S3ArchiveSettings settings,
      String owner,
      InstantSource clock,
      Failpoints failpoints,
      boolean ownsClient) {
    Objects.requireNonNull(client, "client");
    Objects.requireNonNull(owner, "owner");
    if (!ArchiveKeys.OWNER.matcher(owner).matches()) {
      throw S3ArchiveSettings.invalid(
          "owner id",
          owner,
          "1 to 64 letters, digits, _ and - (it is part of object names)",
          "pass the pod or host name with dots replaced by -");
    }
    this.bucket = new Bucket(client, settings.bucket());
    this.keys = new ArchiveKeys(settings.bucket(), settings.prefix());
    this.epochMark = new EpochMarkObjects(bucket, keys);
    this.owner = owner;
    this.clock = Objects.requireNonNull(clock, "clock");
    this.failpoints = Objects.requireNonNull(failpoints, "failpoints");
    this.partSize = settings.partSizeBytes();
    this.staleAfter = settings.staleAfter();
    this.owned = ownsClient ? client : null;
    sweep();
  }

  /** A store with a client of its own, built from {@code settings}; {@link #close} closes it. */
  public static S3ArchiveStore open(S3ArchiveSettings settings, String owner, InstantSource clock) {
    S3Client client = S3Clients.create(settings);
    try {
      return new S3ArchiveStore(client, settings, owner, clock, Failpoints.NONE, true);
    } catch (RuntimeException e) {
      client.close();
      throw e;
    }
  }

  @Override
  public ArchiveUpload begin(SessionId session, long generation) {
    Objects.requireNonNull(session, "session");
    if (generation < 1) {
      throw new IllegalArgumentException("archive generation must be >= 1, was " + generation);
    }
    // Refused before any byte is streamed; commit checks again, and its conditional put decides.
    if (bucket.exists(keys.marker(session, generation))) {
      throw alreadyExists(session, generation);
    }
    byte[] random = new byte[16];
    TOKENS.nextBytes(random);
    String dataName = ArchiveKeys.dataName(generation, owner, HexFormat.of().formatHex(random));
    String dataKey = keys.folder(session) + dataName;
    inFlight.add(dataKey);
    try {
      String uploadId = bucket.startUpload(dataKey);
      return new S3Upload(
          this,
          bucket,
          new S3Upload.Target(session, generation, dataName, dataKey, uploadId),
          partSize);
    } catch (RuntimeException e) {
      inFlight.remove(dataKey);
      throw e;
    }
  }

  @Override
  public InputStream open(ArchiveRef archive) {
    Location at = keys.locate(archive).orElseThrow(() -> notFound(archive));
    Marker marker =
        marker(at.session(), at.generation())
            .filter(m -> m.describes(archive))
            .orElseThrow(() -> notFound(archive));
    return bucket
        .open(keys.folder(at.session()) + marker.data())
        .orElseThrow(() -> notFound(archive));
  }

  @Override
  public List<ArchiveRef> list(SessionId session) {
    List<ArchiveRef> refs = new ArrayList<>();
    List<Long> generations = new ArrayList<>();
    bucket.forEachObject(
        keys.folder(session),
        object -> {
          if (keys.parse(object.key()).orElse(null) instanceof MarkerEntry m
              && m.session().equals(session)) {
            generations.add(m.generation());
          }
        });
    for (long generation : generations) {
      marker(session, generation).ifPresent(m -> refs.add(m.ref()));
    }
    refs.sort(Comparator.comparingLong(ArchiveRef::generation));
    return List.copyOf(refs);
  }

  /**
   * Deletes the marker first, so the archive is gone at once, then its data object; a crash between
   * the two leaves a data object that no marker names, which a sweep removes.
   */
  @Override
  public void delete(ArchiveRef archive) {
    Optional<Location> at = keys.locate(archive);
    if (at.isEmpty()) {
      return;
    }
    SessionId session = at.get().session();
    long generation = at.get().generation();
    Optional<Marker> marker = marker(session, generation).filter(m -> m.describes(archive));
    if (marker.isPresent()) {
      bucket.delete(keys.marker(session, generation));
      failpoints.reach("archive.delete.unmarked");
      bucket.delete(keys.folder(session) + marker.get().data());
    }
  }

  @Override
  public long storeEpochSeen() {
    return new EpochMarkObjects(bucket, keys).read();
  }

  @Override
  public void recordStoreEpoch(long epoch) {
    epochMark.raise(epoch);
  }

  /** Writes and removes {@code <prefix>.probe-<random>}, where no session's archives live. */
  @Override
  public void checkWritable() {
    String key = keys.prefix() + ".probe-" + java.util.UUID.randomUUID();
    try {
      bucket.putIfAbsent(key, new byte[] {1});
    } catch (RuntimeException e) {
      throw new IllegalStateException(
          "cannot write a probe into bucket "
              + bucket.name()
              + " under "
              + key
              + ": "
              + e.getMessage(),
          e);
    } finally {
      try {
        bucket.delete(key);
      } catch (RuntimeException e) {
        // The write is what readiness asks about; a probe left behind is one byte under a key
        // that no session's listing reads.
      }
    }
  }

  /**
   * Removes the leftovers of interrupted uploads under the prefix, by the rule of the package
   * documentation. Runs at construction; safe to call at any time, and spares this instance's
   * uploads in flight.
   *
   * @return how many multipart uploads and objects it removed
   */
  public int sweep() {
    int removed =
        new LeftoverSweep(bucket, keys, owner, clock.instant(), staleAfter, inFlight::contains)
            .run();
    if (removed > 0) {
      LOG.info(
          "archive store s3://{}/{}: removed {} leftovers of interrupted uploads and deletes",
          bucket.name(),
          keys.prefix(),
          removed);
    }
    return removed;
  }

  /** Closes the client if this store built it ({@link #open}); uploads in flight fail after. */
  @Override
  public void close() {
    if (owned != null) {
      owned.close();
    }
  }

  /** The marker of a generation, if it exists and can be read; an unreadable one is logged once. */
  private Optional<Marker> marker(SessionId session, long generation) {
    String key = keys.marker(session, generation);
    Optional<byte[]> body = bucket.read(key);
    if (body.isEmpty()) {
      return Optional.empty();
    }
    Optional<Marker> marker =
        Marker.read(body.get(), session, generation, keys.uri(session, generation));
    if (marker.isEmpty() && reported.add(key)) {
      LOG.warn(
          "archive marker s3://{}/{} cannot be read: its archive is not listed, and the"
              + " generation stays taken; repair or delete the marker by hand",
          bucket.name(),
          key);
    } else if (marker.isPresent()) {
      reported.remove(key);
    }
    return marker;
  }

  ArchiveKeys keys() {
    return keys;
  }

  InstantSource clock() {
    return clock;
  }

  Failpoints failpoints() {
    return failpoints;
  }

  /** An upload ended (committed, refused or aborted): a sweep may judge its objects again. */
  void finished(String dataKey) {
    inFlight.remove(dataKey);
  }

  AlreadyExistsException alreadyExists(SessionId session, long generation) {
    return new AlreadyExistsException(
        "archive generation %d of session %s in s3://%s/%s (committed archives are immutable)"
            .formatted(generation, session.value(), bucket.name(), keys.prefix()));
  }

  private static NotFoundException notFound(ArchiveRef archive) {
    return new NotFoundException("archive " + archive.uri());
  }
}
