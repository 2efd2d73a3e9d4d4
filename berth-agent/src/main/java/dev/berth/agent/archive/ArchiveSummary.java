package dev.berth.agent.archive;

import java.util.List;

/**
 * What {@link ArchiveWriter} wrote: the number of entries in the manifest (directories, regular
 * files and symlinks), the bytes of regular-file content, the manifest digest, and one line per
 * path it left out and why ({@code "home/sock: socket"}); lock files and paths the caller excluded
 * are not listed.
 */
public record ArchiveSummary(long files, long totalBytes, String digest, List<String> skipped) {

  public ArchiveSummary {
    skipped = List.copyOf(skipped);
  }
}
