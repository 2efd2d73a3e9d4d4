package dev.berth.archive.s3;

import dev.berth.core.archive.ArchiveStore;
import dev.berth.core.archive.ArchiveStoreContract;
import dev.berth.core.testing.MutableClock;

/**
 * The S3 archive store passes the archive contract against a real S3-compatible server, each test
 * under a fresh prefix of one bucket.
 */
class S3ArchiveStoreTest extends ArchiveStoreContract {
  private static final String OWNER = "replica-a";

  private final S3TestServer server = S3TestServer.get();
  private final String prefix = S3TestServer.freshPrefix();

  @Override
  protected ArchiveStore newStore(MutableClock clock) {
    return new S3ArchiveStore(server.client(), server.settings(prefix), OWNER, clock);
  }

  @Override
  protected ArchiveStore restartStore(MutableClock clock) {
    return new S3ArchiveStore(server.client(), server.settings(prefix), OWNER, clock);
  }

  /** Multipart uploads in flight, and data objects that no marker names. */
  @Override
  protected long leftovers() {
    return BucketContents.of(server.client(), prefix).leftovers();
  }
}
