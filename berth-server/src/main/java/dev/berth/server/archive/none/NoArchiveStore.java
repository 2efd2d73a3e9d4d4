package dev.berth.server.archive.none;

import dev.berth.core.archive.ArchiveStore;
import dev.berth.core.archive.ArchiveUpload;
import dev.berth.core.error.NotFoundException;
import dev.berth.core.session.ArchiveRef;
import dev.berth.core.session.SessionId;
import java.io.InputStream;
import java.util.List;

/**
 * The archive store of an installation that takes no snapshots: nothing can be written, so nothing
 * is ever found, and deleting is trivially done. The snapshot route says the same to clients (503
 * SNAPSHOT_UNAVAILABLE) until a real archive store is configured.
 */
public final class NoArchiveStore implements ArchiveStore {

  @Override
  public ArchiveUpload begin(SessionId session, long generation) {
    throw new IllegalStateException(
        "session "
            + session.value()
            + ": this installation has no archive store, so it cannot take snapshot generation "
            + generation);
  }

  @Override
  public InputStream open(ArchiveRef archive) {
    throw new NotFoundException("archive " + archive.uri());
  }

  @Override
  public List<ArchiveRef> list(SessionId session) {
    return List.of();
  }

  @Override
  public void delete(ArchiveRef archive) {
    // Nothing was ever stored here.
  }

  /** Nothing is ever written here, and nothing is expected to be: not a failure. */
  @Override
  public void checkWritable() {
    // Snapshots are off; readiness does not depend on archives.
  }
}
