package dev.berth.agent.isolation;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * One session's cgroup: a directory per hierarchy (one on v2, {@code pids} and {@code memory} on
 * v1), with the limits written before any process enters.
 *
 * <p>Killing: v2 has {@code cgroup.kill}, which kills every member atomically, forks in flight
 * included. v1 has nothing alike, so members are killed one by one until the group stays empty;
 * {@code pids.max} bounds how fast a fork loop can refill it, so the loop converges.
 */
final class Cgroup {
  private static final Duration KILL_DEADLINE = Duration.ofSeconds(5);
  private static final long CPU_PERIOD_MICROS = 100_000;

  private final CgroupLayout layout;
  private final List<Path> directories;

  private Cgroup(CgroupLayout layout, List<Path> directories) {
    this.layout = layout;
    this.directories = List.copyOf(directories);
  }

  /**
   * Creates (or adopts, when empty) the cgroup {@code name} and writes its limits.
   *
   * @throws IllegalStateException when a cgroup of that name exists and still holds processes
   * @throws UncheckedIOException when the cgroup cannot be created or configured
   */
  static Cgroup create(CgroupLayout layout, String name, ResourceLimits limits) {
    Cgroup cgroup;
    try {
      cgroup = new Cgroup(layout, layout.createChild(name));
    } catch (IOException e) {
      layout.removeUnusedParents();
      throw new UncheckedIOException("cannot create cgroup " + name, e);
    }
    if (!cgroup.pids().isEmpty()) {
      throw new IllegalStateException(
          "cgroup " + cgroup.directory() + " already holds processes " + cgroup.pids());
    }
    try {
      cgroup.writeLimits(limits);
    } catch (IOException e) {
      cgroup.remove();
      throw new UncheckedIOException("cannot set the limits of cgroup " + cgroup.directory(), e);
    }
    return cgroup;
  }

  private void writeLimits(ResourceLimits limits) throws IOException {
    // CFS bandwidth: the quota of CPU time per period; 1000 millis is one period per period.
    long quota = limits.cpuMillis() * (CPU_PERIOD_MICROS / 1000);
    if (layout.version().equals("v2")) {
      Path dir = directories.get(0);
      Files.writeString(dir.resolve("pids.max"), Integer.toString(limits.maxProcesses()));
      Files.writeString(dir.resolve("memory.max"), Long.toString(limits.maxMemoryBytes()));
      if (layout.cpu()) {
        Files.writeString(dir.resolve("cpu.max"), quota + " " + CPU_PERIOD_MICROS);
      }
    } else {
      Files.writeString(
          directories.get(0).resolve("pids.max"), Integer.toString(limits.maxProcesses()));
      Files.writeString(
          directories.get(1).resolve("memory.limit_in_bytes"),
          Long.toString(limits.maxMemoryBytes()));
      if (layout.cpu()) {
        Files.writeString(
            directories.get(2).resolve("cpu.cfs_period_us"), Long.toString(CPU_PERIOD_MICROS));
        Files.writeString(directories.get(2).resolve("cpu.cfs_quota_us"), Long.toString(quota));
      }
    }
  }

  /** Whether {@link #freeze()} stops every member at once (a freezer is there). */
  boolean canFreeze() {
    return layout.version().equals("v2")
        ? Files.exists(directories.get(0).resolve("cgroup.freeze"))
        : layout.freezer();
  }

  /**
   * Freezes every member, forks in flight included, and returns once the kernel says the group is
   * frozen: unlike SIGSTOP, no member can thaw another (a session that sends SIGCONT to itself in a
   * loop stays frozen), so what a checkpoint reads cannot change under it.
   *
   * @throws IllegalStateException when the group is not frozen within a few seconds
   */
  void freeze() {
    try {
      if (layout.version().equals("v2")) {
        Path dir = directories.get(0);
        Files.writeString(dir.resolve("cgroup.freeze"), "1");
        awaitContent(dir.resolve("cgroup.events"), "frozen 1");
      } else {
        Path state = freezerDirectory().resolve("freezer.state");
        Files.writeString(state, "FROZEN");
        awaitContent(state, "FROZEN");
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot freeze cgroup " + directory(), e);
    }
  }

  /** Thaws the group; a group that is not frozen is left as it is. */
  void thaw() {
    try {
      if (layout.version().equals("v2")) {
        writeIfPresent(directories.get(0).resolve("cgroup.freeze"), "0");
      } else {
        writeIfPresent(freezerDirectory().resolve("freezer.state"), "THAWED");
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot thaw cgroup " + directory(), e);
    }
  }

  private Path freezerDirectory() {
    return directories.get(directories.size() - 1);
  }

  private static void writeIfPresent(Path file, String value) throws IOException {
    if (Files.exists(file)) {
      Files.writeString(file, value);
    }
  }

  private static void awaitContent(Path file, String expected) throws IOException {
    long deadline = System.nanoTime() + KILL_DEADLINE.toNanos();
    while (true) {
      String content = Files.readString(file);
      if (content.lines().anyMatch(line -> line.strip().equals(expected))) {
        return;
      }
      if (System.nanoTime() - deadline > 0) {
        throw new IllegalStateException(
            file + " did not say \"" + expected + "\" within 5 s: " + content.strip());
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2));
    }
  }

  /** The {@code cgroup.procs} files a process writes its pid into to enter this cgroup. */
  List<Path> procsFiles() {
    return directories.stream().map(d -> d.resolve("cgroup.procs")).toList();
  }

  /** The pids hierarchy's directory. */
  Path directory() {
    return directories.get(0);
  }

  List<Path> directories() {
    return directories;
  }

  /** Every process now in the cgroup. */
  Set<Long> pids() {
    Set<Long> pids = new TreeSet<>();
    for (Path procs : procsFiles()) {
      try {
        for (String line : Files.readAllLines(procs)) {
          if (!line.isBlank()) {
            pids.add(Long.parseLong(line.trim()));
          }
        }
      } catch (NoSuchFileException e) {
        continue;
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read " + procs, e);
      }
    }
    return pids;
  }

  /** SIGKILLs every member until none is left, or gives up after a few seconds. */
  void kill() {
    // A v1 frozen task does not die before it thaws.
    if (layout.freezer()) {
      try {
        thaw();
      } catch (UncheckedIOException e) {
        // Removed meanwhile: nothing is frozen any more.
      }
    }
    Path killFile = directory().resolve("cgroup.kill");
    long deadline = System.nanoTime() + KILL_DEADLINE.toNanos();
    Set<Long> members = pids();
    while (!members.isEmpty() && System.nanoTime() < deadline) {
      if (Files.exists(killFile)) {
        writeQuietly(killFile, "1");
      } else {
        members.forEach(pid -> ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly));
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
      members = pids();
    }
  }

  /** Kills every member and removes the directories (and unused parents). Idempotent. */
  void remove() {
    kill();
    long deadline = System.nanoTime() + KILL_DEADLINE.toNanos();
    for (Path directory : directories) {
      while (Files.exists(directory)) {
        try {
          Files.delete(directory);
        } catch (IOException e) {
          if (System.nanoTime() > deadline) {
            throw new UncheckedIOException("cannot remove cgroup " + directory, e);
          }
          LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
        }
      }
    }
    layout.removeUnusedParents();
  }

  private static void writeQuietly(Path file, String value) {
    try {
      Files.writeString(file, value);
    } catch (IOException e) {
      // The group emptied between the check and the write; the caller re-reads the members.
      return;
    }
  }
}
