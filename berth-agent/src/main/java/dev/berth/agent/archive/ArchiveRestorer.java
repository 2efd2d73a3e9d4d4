package dev.berth.agent.archive;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * Restores an archive over a directory, all or nothing. The archive is extracted into {@code
 * .NAME.restore-staging} next to the target, checked entry by entry and against its manifest, and
 * only then swapped in by two renames (see {@link StagingSwap} for the crash states and how the
 * next restore, or {@link #recover}, cleans them). On any refusal the target is untouched, the
 * staging directory is gone, and an {@link ArchiveUnsafeException} or {@link
 * ArchiveCorruptException} says which rule broke and at which entry.
 *
 * <p>The caller's stream is read to its end and not closed. A failure of that stream is rethrown as
 * the {@link IOException} it was, as are failures of the local filesystem; neither is blamed on the
 * archive. The workload must not run in the target while it is restored (reliability ).
 */
public final class ArchiveRestorer {

  private ArchiveRestorer() {}

  /** Restores without demanding an identity; returns the archive's manifest. */
  public static Manifest restore(InputStream in, Path target, ArchiveLimits limits)
      throws IOException {
    return restore(in, target, Optional.empty(), limits);
  }

  /**
   * Restores an archive that must be generation {@code expected.generation()} of session {@code
   * expected.session()} (its creation time is not compared); returns the archive's manifest.
   */
  public static Manifest restore(
      InputStream in, Path target, ArchiveIdentity expected, ArchiveLimits limits)
      throws IOException {
    return restore(in, target, Optional.of(expected), limits);
  }

  /**
   * Finishes or undoes what an interrupted restore of {@code target} left next to it, so that the
   * target is whole again (old or new tree, never a mix). Every restore runs it first; the agent
   * may also run it at start-up. Returns whether anything was left.
   */
  public static boolean recover(Path target) throws IOException {
    return StagingSwap.of(target).recover();
  }

  private static Manifest restore(
      InputStream in, Path target, Optional<ArchiveIdentity> expected, ArchiveLimits limits)
      throws IOException {
    Objects.requireNonNull(in, "in is required");
    Objects.requireNonNull(limits, "limits are required");
    StagingSwap swap = StagingSwap.of(target);
    swap.recover();
    Path staging = swap.createStaging();
    Manifest manifest;
    try {
      swap.keepRootPermissions();
      manifest = new Extraction(staging, limits, expected).run(in);
    } catch (Throwable failure) {
      swap.discard(failure);
      throw failure;
    }
    swap.commit();
    return manifest;
  }
}
