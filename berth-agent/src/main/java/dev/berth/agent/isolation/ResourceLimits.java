package dev.berth.agent.isolation;

import dev.berth.core.error.InvalidValueException;

/**
 * The limits one session runs under, shell and executions together.
 *
 * <p>The defaults ({@link #defaults()}) are sized for an interactive developer session: 512
 * processes (a build with parallel compilers fits, a fork bomb does not), 2 GiB of memory and 8 GiB
 * per file (a large archive or database dump fits, a runaway log does not fill the disk).
 *
 * @param maxProcesses processes and threads at once, enforced by the {@code pids} cgroup controller
 *     (RLIMIT_NPROC is per user and ignored for root, so it cannot do this)
 * @param maxMemoryBytes resident memory including page cache and tmpfs, enforced by the {@code
 *     memory} cgroup controller
 * @param maxFileSizeBytes the largest file any process may write, enforced by RLIMIT_FSIZE (rounded
 *     down to whole 512-byte blocks, at least one)
 * @param cpuMillis the CPU time the session may use per wall-clock second, in thousandths of a CPU
 *     (1000 = one whole CPU), enforced by the {@code cpu} cgroup controller ({@code cpu.max} on v2,
 *     {@code cpu.cfs_quota_us} on v1): a busy loop in one session leaves the other cores to the
 *     rest
 * @param maxDiskBytes what the session's state (home, {@code /tmp}, shell state, output) may take
 *     on disk, enforced by a filesystem of that size of its own (see {@link StateDisks}): a write
 *     beyond it fails with "No space left on device" inside the session, and nothing else on the
 *     host runs short
 */
public record ResourceLimits(
    int maxProcesses,
    long maxMemoryBytes,
    long maxFileSizeBytes,
    int cpuMillis,
    long maxDiskBytes) {
  private static final long MIB = 1024L * 1024;
  private static final long GIB = 1024L * MIB;

  public ResourceLimits {
    if (maxProcesses < 1 || maxProcesses > 1_000_000) {
      throw new InvalidValueException(
          "maxProcesses must be between 1 and 1000000, was " + maxProcesses);
    }
    if (maxMemoryBytes < 16 * MIB) {
      throw new InvalidValueException(
          "maxMemoryBytes must be at least 16 MiB (16777216), was " + maxMemoryBytes);
    }
    if (cpuMillis < 10 || cpuMillis > 1_000_000) {
      throw new InvalidValueException(
          "cpuMillis must be between 10 (a hundredth of a CPU) and 1000000, was " + cpuMillis);
    }
    if (maxFileSizeBytes < 512) {
      throw new InvalidValueException(
          "maxFileSizeBytes must be at least one 512-byte block, was " + maxFileSizeBytes);
    }
    if (maxDiskBytes < MIN_DISK_BYTES) {
      throw new InvalidValueException(
          "maxDiskBytes must be at least 16 MiB (16777216), was " + maxDiskBytes);
    }
  }

  /** The smallest disk cap: room for a filesystem's own records and a shell's dotfiles. */
  public static final long MIN_DISK_BYTES = 16 * MIB;

  /** Ten GiB: a checkout, its build and a package cache fit; a runaway download does not. */
  public static final long DEFAULT_DISK_BYTES = 10 * GIB;

  /** These limits with the default disk cap. */
  public ResourceLimits(
      int maxProcesses, long maxMemoryBytes, long maxFileSizeBytes, int cpuMillis) {
    this(maxProcesses, maxMemoryBytes, maxFileSizeBytes, cpuMillis, DEFAULT_DISK_BYTES);
  }

  /** These limits with one whole CPU: the default share. */
  public ResourceLimits(int maxProcesses, long maxMemoryBytes, long maxFileSizeBytes) {
    this(maxProcesses, maxMemoryBytes, maxFileSizeBytes, DEFAULT_CPU_MILLIS);
  }

  /** One whole CPU. */
  public static final int DEFAULT_CPU_MILLIS = 1000;

  /** 512 processes, 2 GiB of memory, 8 GiB per file, one CPU, 10 GiB of disk. */
  public static ResourceLimits defaults() {
    return new ResourceLimits(512, 2 * GIB, 8 * GIB, DEFAULT_CPU_MILLIS, DEFAULT_DISK_BYTES);
  }

  /** These limits with {@code millis} thousandths of a CPU. */
  public ResourceLimits withCpuMillis(int millis) {
    return new ResourceLimits(maxProcesses, maxMemoryBytes, maxFileSizeBytes, millis, maxDiskBytes);
  }

  /** These limits with a disk cap of {@code bytes}. */
  public ResourceLimits withMaxDiskBytes(long bytes) {
    return new ResourceLimits(maxProcesses, maxMemoryBytes, maxFileSizeBytes, cpuMillis, bytes);
  }
}
