package dev.berth.core.lifecycle;

import dev.berth.core.archive.ArchiveStore;
import dev.berth.core.session.ArchiveRef;
import dev.berth.core.session.SessionId;

/**
 * Once the session durably points at generation G, the older generations are nobody's: no restore
 * reads them again. Best effort: what a failure leaves is only storage, and the next suspend tries
 * again.
 */
final class ArchivePruning {
  private ArchivePruning() {}

  static void deleteOlderThan(ArchiveStore archives, SessionId session, long generation) {
    try {
      for (ArchiveRef older : archives.list(session)) {
        if (older.generation() < generation) {
          archives.delete(older);
        }
      }
    } catch (RuntimeException e) {
      // kept for the next suspend to delete
    }
  }

  static void deleteQuietly(ArchiveStore archives, ArchiveRef archive) {
    try {
      archives.delete(archive);
    } catch (RuntimeException e) {
      // only storage is left behind
    }
  }
}
