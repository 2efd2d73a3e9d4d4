package dev.berth.agent.isolation;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The confinement mechanisms this host offers, detected once at start, and the factory of each
 * session's {@link LaunchPlan}.
 *
 * <p>Detection is by trying, not by looking: a cgroup directory is created, and bwrap is run once
 * with the flags every session will use. A container without the privilege for either gets {@code
 * none} and sessions still run, limited only by RLIMIT_FSIZE; {@link #isolation()} says so.
 */
public final class Sandbox {
  static final List<String> BWRAP_NAMESPACES = List.of("mount", "pid", "ipc");
  private static final Logger LOG = LoggerFactory.getLogger(Sandbox.class);
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,127}");

  private final Optional<CgroupLayout> cgroups;
  private final Optional<Path> bwrap;

  private Sandbox(Optional<CgroupLayout> cgroups, Optional<Path> bwrap) {
    this.cgroups = cgroups;
    this.bwrap = bwrap;
  }

  /**
   * Detects what this host can enforce.
   *
   * @param cgroupRoot where the cgroup filesystems are mounted, usually {@code /sys/fs/cgroup}
   */
  public static Sandbox detect(Path cgroupRoot) {
    List<String> self;
    try {
      self = Files.readAllLines(Path.of("/proc/self/cgroup"));
    } catch (IOException e) {
      self = List.of();
    }
    Sandbox sandbox = new Sandbox(CgroupLayout.detect(cgroupRoot, self), findWorkingBwrap());
    LOG.info("session isolation on this host: {}", sandbox.isolation());
    return sandbox;
  }

  /** No cgroup and no namespaces: only the file size limit applies. */
  public static Sandbox none() {
    return new Sandbox(Optional.empty(), Optional.empty());
  }

  /** The same host without bwrap: cgroups (if any) but no namespaces. */
  public Sandbox withoutNamespaces() {
    return new Sandbox(cgroups, Optional.empty());
  }

  /** What a session launched now would run under, with the default limits. */
  public Isolation isolation() {
    return isolation(ResourceLimits.defaults());
  }

  /** What a session launched now with {@code limits} would run under. */
  public Isolation isolation(ResourceLimits limits) {
    return new Isolation(
        bwrap.isPresent() ? "bwrap" : "none",
        bwrap.isPresent() ? BWRAP_NAMESPACES : List.of(),
        cgroups.map(CgroupLayout::version).orElse("none"),
        limits);
  }

  /**
   * Prepares one session's confinement: creates its cgroup (when cgroups are available) and returns
   * the argv that runs {@code command} inside it. Close the plan once every process it launched is
   * gone, to remove the cgroup.
   *
   * @param name unique on this host, e.g. the runtime name; letters, digits, {@code _ . -}
   * @param command the workload, e.g. {@code [/bin/bash]}
   * @param stateDir the one directory the workload may write (with a private {@code /tmp}) when
   *     bwrap is in force; created when missing
   * @throws IllegalArgumentException when the name, command or directory is unusable
   * @throws IllegalStateException when a cgroup of that name still holds processes
   * @throws UncheckedIOException when the cgroup or directory cannot be created
   */
  public LaunchPlan plan(String name, List<String> command, Path stateDir, ResourceLimits limits) {
    return plan(name, command, WritablePaths.of(stateDir), limits);
  }

  /**
   * Like {@link #plan(String, List, Path, ResourceLimits)} with several writable directories and
   * perhaps a {@code /tmp} of the session's own; every one of them is created when missing.
   */
  public LaunchPlan plan(
      String name, List<String> command, WritablePaths writable, ResourceLimits limits) {
    Objects.requireNonNull(limits, "limits");
    if (name == null || !NAME.matcher(name).matches()) {
      throw new IllegalArgumentException(
          "plan name must be 1-128 letters, digits, '_', '.' or '-', starting with a letter or"
              + " digit, was \""
              + name
              + "\"");
    }
    if (command.isEmpty()) {
      throw new IllegalArgumentException("plan " + name + " needs a command");
    }
    for (Path dir : writable.all()) {
      try {
        Files.createDirectories(dir);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot create state dir " + dir, e);
      }
    }
    Optional<Cgroup> cgroup = cgroups.map(layout -> Cgroup.create(layout, name, limits));
    return new LaunchPlan(name, command, writable, isolation(limits), cgroup, bwrap);
  }

  @Override
  public String toString() {
    Isolation isolation = isolation();
    return "Sandbox[sandbox=" + isolation.sandbox() + ", cgroup=" + isolation.cgroup() + "]";
  }

  private static Optional<Path> findWorkingBwrap() {
    String path = Objects.requireNonNullElse(System.getenv("PATH"), "/usr/bin:/bin");
    for (String entry : path.split(File.pathSeparator)) {
      Path candidate = Path.of(entry.isEmpty() ? "." : entry, "bwrap");
      if (Files.isExecutable(candidate) && bwrapRuns(candidate)) {
        return Optional.of(candidate);
      }
    }
    return Optional.empty();
  }

  /** bwrap may be installed yet unusable (no namespaces allowed, seccomp, a read-only /proc). */
  private static boolean bwrapRuns(Path bwrap) {
    Path scratch = Path.of(System.getProperty("java.io.tmpdir"));
    List<String> argv =
        new ArrayList<>(LaunchPlan.bwrapArguments(bwrap, WritablePaths.of(scratch)));
    argv.addAll(List.of("--", "/bin/true"));
    try {
      Process process =
          new ProcessBuilder(argv)
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.DISCARD)
              .start();
      if (!process.waitFor(5, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        return false;
      }
      return process.exitValue() == 0;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }
}
