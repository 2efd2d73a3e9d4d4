package dev.berth.agent.isolation;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What a confined workload may write when bwrap is in force: directories bound read-write at their
 * own paths, and optionally a directory bound as {@code /tmp}. Without a {@code tmp} directory
 * {@code /tmp} is a fresh tmpfs for each launch; with one, {@code /tmp} is that directory for the
 * shell and every execution alike, and outlives them (a runtime keeps it in its state directory, so
 * that it is archived and restored with {@code home/}). Without bwrap nothing of this is enforced:
 * the workload writes what the agent's user may write, and {@code /tmp} is the host's.
 *
 * @param directories at least one; the first is the workload's state directory
 * @param tmp the directory to bind as {@code /tmp}, or empty for a private tmpfs
 */
public record WritablePaths(List<Path> directories, Optional<Path> tmp) {

  public WritablePaths {
    directories = directories.stream().map(WritablePaths::normalized).toList();
    if (directories.isEmpty()) {
      throw new IllegalArgumentException("a workload needs at least one writable directory");
    }
    tmp = tmp.map(WritablePaths::normalized);
  }

  /** {@code first} and {@code more} writable, {@code /tmp} a private tmpfs. */
  public static WritablePaths of(Path first, Path... more) {
    List<Path> all = new ArrayList<>(List.of(first));
    all.addAll(List.of(more));
    return new WritablePaths(all, Optional.empty());
  }

  /** These paths with {@code directory} bound as {@code /tmp}. */
  public WritablePaths withTmp(Path directory) {
    return new WritablePaths(directories, Optional.of(directory));
  }

  /** The first directory: where the workload starts and what it calls its state. */
  public Path stateDir() {
    return directories.get(0);
  }

  /** Every directory this grants, {@code tmp} included. */
  List<Path> all() {
    List<Path> all = new ArrayList<>(directories);
    tmp.ifPresent(all::add);
    return all;
  }

  private static Path normalized(Path path) {
    Path absolute = path.toAbsolutePath().normalize();
    if (absolute.getNameCount() == 0) {
      throw new IllegalArgumentException("a writable directory cannot be /");
    }
    return absolute;
  }
}
