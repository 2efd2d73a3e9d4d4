package dev.berth.agent.isolation;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
public record WritablePaths(List<Path> directories, Optional<Path> tmp, Map<Path, Path> targets) {

  public WritablePaths {
    directories = directories.stream().map(WritablePaths::normalized).toList();
    if (directories.isEmpty()) {
      throw new IllegalArgumentException("a workload needs at least one writable directory");
    }
    tmp = tmp.map(WritablePaths::normalized);
    Map<Path, Path> normalizedTargets = new LinkedHashMap<>();
    targets.forEach((host, inside) -> normalizedTargets.put(normalized(host), normalized(inside)));
    targets = Collections.unmodifiableMap(normalizedTargets);
  }

  public WritablePaths(List<Path> directories, Optional<Path> tmp) {
    this(directories, tmp, Map.of());
  }

  /**
   * These paths with {@code directory} seen at {@code inside} by a sandboxed workload (its home at
   * {@code /home/berth}, say) instead of at its host path. Without a sandbox nothing moves.
   */
  public WritablePaths withTarget(Path directory, Path inside) {
    Map<Path, Path> more = new LinkedHashMap<>(targets);
    more.put(directory, inside);
    return new WritablePaths(directories, tmp, more);
  }

  /** Where a sandboxed workload sees {@code directory}: its target, or its own path. */
  public Path targetOf(Path directory) {
    Path normalized = normalized(directory);
    return targets.getOrDefault(normalized, normalized);
  }

  /** {@code first} and {@code more} writable, {@code /tmp} a private tmpfs. */
  public static WritablePaths of(Path first, Path... more) {
    List<Path> all = new ArrayList<>(List.of(first));
    all.addAll(List.of(more));
    return new WritablePaths(all, Optional.empty());
  }

  /** These paths with {@code directory} bound as {@code /tmp}. */
  public WritablePaths withTmp(Path directory) {
    return new WritablePaths(directories, Optional.of(directory), targets);
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
