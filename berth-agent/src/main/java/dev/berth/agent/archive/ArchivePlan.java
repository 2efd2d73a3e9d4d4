package dev.berth.agent.archive;

import java.util.List;
import java.util.Optional;

/**
 * What an archive of a tree will hold, known before a byte is written ({@link ArchiveWriter#plan}):
 * its entries, the bytes of its files, its largest file, and what it leaves out and why. A
 * checkpoint checks it against the limits its restore will apply, so that an archive the restore
 * would refuse is refused while the session still runs, never discovered at restore.
 *
 * @param skipped one line per path left out, {@code "home/sock: socket"}
 */
public record ArchivePlan(long entries, long totalBytes, long largestFile, List<String> skipped) {

  public ArchivePlan {
    skipped = List.copyOf(skipped);
  }

  /**
   * The first limit a restore under {@code limits} would find broken, as a sentence naming the
   * limit, the value and the way out; empty when the archive fits. The compression ratio is not
   * known before writing; a restore applies it only past what the tree may hold in total.
   */
  public Optional<String> breaks(ArchiveLimits limits) {
    if (entries > limits.maxEntries()) {
      return Optional.of(
          "the state holds "
              + entries
              + " files, directories and links, more than the "
              + limits.maxEntries()
              + " a restore accepts; remove some (a cache, a build directory) and snapshot again");
    }
    if (totalBytes > limits.maxTotalBytes()) {
      return Optional.of(
          "the state's files hold "
              + totalBytes
              + " bytes, more than the "
              + limits.maxTotalBytes()
              + " a restore accepts; remove some and snapshot again");
    }
    if (largestFile > limits.maxEntryBytes()) {
      return Optional.of(
          "a file of the state holds "
              + largestFile
              + " bytes, more than the "
              + limits.maxEntryBytes()
              + " a restore accepts for one file; remove or split it and snapshot again");
    }
    return Optional.empty();
  }
}
