package dev.berth.core.archive;

import dev.berth.core.error.NotFoundException;
import dev.berth.core.session.ArchiveRef;
import dev.berth.core.session.SessionId;
import java.io.InputStream;
import java.util.List;

/** Where committed session archives live: a directory, or S3-compatible object storage. */
public interface ArchiveStore {

  /** Starts writing archive {@code generation} of {@code session}. */
  ArchiveUpload begin(SessionId session, long generation);

  /**
   * Opens a committed archive for reading.
   *
   * @throws NotFoundException when it does not exist (deleted, or never committed)
   */
  InputStream open(ArchiveRef archive);

  /** The committed archives of a session, oldest generation first. */
  List<ArchiveRef> list(SessionId session);

  /** Deletes an archive; deleting one that does not exist does nothing. */
  void delete(ArchiveRef archive);

  /**
   * Proves that an archive could be written now, by writing and removing a small probe where
   * archives go (not a session's place: no archive is touched). For readiness: a server whose
   * archives cannot be written cannot suspend a session.
   *
   * @throws RuntimeException naming where and why when it cannot be written
   */
  void checkWritable();

  /**
   * The highest store epoch recorded with an archive ({@link #recordStoreEpoch}); 0 when none was,
   * or when this store keeps no mark. A control plane whose store's epoch is below it was restored
   * from an older backup (docs/operations.md, "Restoring a store backup").
   */
  default long storeEpochSeen() {
    return 0;
  }

  /**
   * Records, durably, that an archive was committed under store epoch {@code epoch}; only the
   * highest is kept. A store that keeps no mark does nothing.
   */
  default void recordStoreEpoch(long epoch) {}
}
