package dev.berth.archive.s3;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The store-epoch high-water mark of an archive prefix: one empty-bodied object per epoch raised
 * to, {@code <prefix>.store-epoch/<19-digit epoch>}, written if absent, and the mark is the highest
 * listed. Objects are never rewritten, so replicas raising it at once cannot lower it (no
 * read-modify-write of one object); the prefix starts with a dot, so no session listing or sweep
 * looks at it.
 */
final class EpochMarkObjects {

  private final Bucket bucket;
  private final String folder;
  private final AtomicLong written = new AtomicLong();

  EpochMarkObjects(Bucket bucket, ArchiveKeys keys) {
    this.bucket = bucket;
    this.folder = keys.prefix() + ".store-epoch/";
  }

  long read() {
    AtomicLong highest = new AtomicLong();
    bucket.forEachObject(
        folder,
        object -> {
          String name = object.key().substring(folder.length());
          if (name.matches("[0-9]{19}")) {
            highest.accumulateAndGet(Long.parseLong(name), Math::max);
          }
        });
    return highest.get();
  }

  void raise(long epoch) {
    if (epoch <= written.get()) {
      return;
    }
    var unused = bucket.putIfAbsent(folder + String.format("%019d", epoch), new byte[0]);
    written.accumulateAndGet(epoch, Math::max);
  }
}
