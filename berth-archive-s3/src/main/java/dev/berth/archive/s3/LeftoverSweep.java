package dev.berth.archive.s3;

import dev.berth.archive.s3.ArchiveKeys.DataEntry;
import dev.berth.archive.s3.ArchiveKeys.Entry;
import dev.berth.archive.s3.ArchiveKeys.MarkerEntry;
import dev.berth.core.session.SessionId;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import software.amazon.awssdk.services.s3.model.MultipartUpload;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * What a sweep removes, by the rule in the package documentation: a multipart upload or a data
 * object that no marker names is a leftover when this owner wrote it and this instance does not
 * have it in flight, or when it is older than the stale age, whoever wrote it. Anything whose name
 * is not of this store's layout is never touched.
 */
final class LeftoverSweep {
  private final Bucket bucket;
  private final ArchiveKeys keys;
  private final String owner;
  private final Instant staleBefore;
  private final Predicate<String> inFlight;
  private int removed;

  LeftoverSweep(
      Bucket bucket,
      ArchiveKeys keys,
      String owner,
      Instant now,
      Duration staleAfter,
      Predicate<String> inFlight) {
    this.bucket = bucket;
    this.keys = keys;
    this.owner = owner;
    this.staleBefore = now.minus(staleAfter);
    this.inFlight = inFlight;
  }

  /** Runs the sweep; returns how many uploads and objects it removed. */
  int run() {
    bucket.forEachUpload(keys.prefix(), this::uploadSeen);
    Folder folder = new Folder();
    bucket.forEachObject(keys.prefix(), folder::add);
    folder.finish();
    return removed;
  }

  private void uploadSeen(MultipartUpload upload) {
    Optional<Entry> entry = keys.parse(upload.key());
    if (entry.orElse(null) instanceof DataEntry data
        && isLeftover(upload.key(), data, upload.initiated())) {
      bucket.abortUpload(upload.key(), upload.uploadId());
      removed++;
    }
  }

  private boolean isLeftover(String key, DataEntry data, Instant writtenAt) {
    if (inFlight.test(key)) {
      return false;
    }
    return data.owner().equals(owner) || writtenAt.isBefore(staleBefore);
  }

  /**
   * The objects of one session folder at a time: keys come in order, so a folder's keys are
   * together, and only one folder is held in memory.
   */
  private final class Folder {
    private SessionId session = new SessionId("0".repeat(32));
    private final Set<Long> markers = new HashSet<>();
    private final Map<Long, List<Data>> data = new HashMap<>();

    void add(S3Object object) {
      Optional<Entry> entry = keys.parse(object.key());
      if (entry.isEmpty()) {
        return;
      }
      if (!entry.get().session().equals(session)) {
        finish();
        session = entry.get().session();
      }
      switch (entry.get()) {
        case MarkerEntry marker -> markers.add(marker.generation());
        case DataEntry d ->
            data.computeIfAbsent(d.generation(), g -> new ArrayList<>())
                .add(new Data(object.key(), d, object.lastModified()));
      }
    }

    void finish() {
      data.forEach(this::sweep);
      markers.clear();
      data.clear();
    }

    private void sweep(long generation, List<Data> objects) {
      Optional<String> named = Optional.empty();
      if (markers.contains(generation)) {
        if (objects.size() == 1) {
          return; // the marker names it: a committed archive
        }
        named = committedData(generation);
        if (named.isEmpty()) {
          return; // a marker that cannot be read: keep every candidate rather than guess
        }
      }
      for (Data d : objects) {
        if (!d.entry().name().equals(named.orElse(null))
            && isLeftover(d.key(), d.entry(), d.lastModified())) {
          bucket.delete(d.key());
          removed++;
        }
      }
    }

    private Optional<String> committedData(long generation) {
      String key = keys.marker(session, generation);
      return bucket
          .read(key)
          .flatMap(body -> Marker.read(body, session, generation, keys.uri(session, generation)))
          .map(Marker::data);
    }
  }

  private record Data(String key, DataEntry entry, Instant lastModified) {}
}
