package dev.berth.agent.isolation;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongConsumer;
import java.util.stream.Stream;

/**
 * Finding the processes of a workload. Handles are taken with {@link ProcessHandle}, which records
 * each process's start time, so a later {@link ProcessHandle#destroyForcibly()} cannot hit a new
 * process that reused the pid.
 */
public final class ProcessTree {
  private static final Path PROC = Path.of("/proc");

  private ProcessTree() {}

  /** {@code root} and all its descendants, as they are now. Empty when {@code root} is gone. */
  public static List<ProcessHandle> snapshot(long root) {
    Optional<ProcessHandle> handle = ProcessHandle.of(root);
    List<ProcessHandle> all = new ArrayList<>();
    handle.ifPresent(
        h -> {
          all.add(h);
          h.descendants().forEach(all::add);
        });
    return all;
  }

  /**
   * Follows the first child {@code depth} times from {@code pid}: a launcher that forks (bwrap)
   * puts the workload a known number of levels below the process that was spawned. Waits up to
   * {@code wait} for the levels to appear.
   *
   * @return the pid {@code depth} levels down, or empty when the chain did not appear in time or
   *     {@code pid} is gone
   */
  public static Optional<Long> descend(long pid, int depth, Duration wait) {
    long deadline = System.nanoTime() + wait.toNanos();
    while (true) {
      Optional<Long> found = descendOnce(pid, depth);
      boolean rootGone = ProcessHandle.of(pid).map(h -> !isRunning(h)).orElse(true);
      if (found.isPresent() || rootGone || System.nanoTime() > deadline) {
        return found;
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2));
    }
  }

  private static Optional<Long> descendOnce(long pid, int depth) {
    long current = pid;
    for (int level = 0; level < depth; level++) {
      Optional<ProcessHandle> child =
          ProcessHandle.of(current).flatMap(h -> h.children().findFirst());
      if (child.isEmpty()) {
        return Optional.empty();
      }
      current = child.get().pid();
    }
    return ProcessHandle.of(current).isPresent() ? Optional.of(current) : Optional.empty();
  }

  /**
   * Every running process of session {@code sid}: jobs that were orphaned (reparented to init)
   * leave the process tree but stay in their session unless they call {@code setsid}.
   */
  public static List<ProcessHandle> inSession(long sid) {
    List<ProcessHandle> found = new ArrayList<>();
    forEachPid(
        pid -> {
          Optional<ProcStat> stat = ProcStat.read(pid);
          if (stat.isPresent() && stat.get().session() == sid && !stat.get().isZombie()) {
            ProcessHandle.of(pid).ifPresent(found::add);
          }
        });
    return found;
  }

  /**
   * Every live process whose initial environment contains {@code name=value}: the tag a launch plan
   * gives its workload survives {@code setsid} and double forks, which leave the process tree. A
   * process that rewrites its environment block escapes this scan, hence it is the last resort
   * behind cgroups and PID namespaces.
   */
  public static List<ProcessHandle> carrying(String name, String value) {
    return carryingAny(List.of(name), List.of(value));
  }

  /**
   * Every live process whose environment has {@code name=value} for any of {@code names} and any of
   * {@code values}: one pass over {@code /proc}, one read of each environment, however many tags
   * are looked for.
   */
  public static List<ProcessHandle> carryingAny(
      Collection<String> names, Collection<String> values) {
    List<byte[]> needles = new ArrayList<>();
    for (String name : names) {
      for (String value : values) {
        needles.add(("\0" + name + "=" + value + "\0").getBytes(StandardCharsets.UTF_8));
      }
    }
    List<ProcessHandle> found = new ArrayList<>();
    if (needles.isEmpty()) {
      return found;
    }
    forEachPid(
        pid -> {
          byte[] environ = environ(PROC.resolve(Long.toString(pid)));
          if (needles.stream().anyMatch(needle -> indexOf(environ, needle) >= 0)) {
            ProcessHandle.of(pid).ifPresent(found::add);
          }
        });
    return found;
  }

  /** Calls {@code action} with every pid in {@code /proc} except the agent's own. */
  private static void forEachPid(LongConsumer action) {
    long self = ProcessHandle.current().pid();
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(PROC, "[0-9]*")) {
      for (Path entry : entries) {
        long pid = Long.parseLong(entry.getFileName().toString());
        if (pid != self) {
          action.accept(pid);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list /proc", e);
    }
  }

  /** The process's environment with a NUL in front, so that every entry is framed by NULs. */
  private static byte[] environ(Path procEntry) {
    byte[] environ;
    try {
      environ = Files.readAllBytes(procEntry.resolve("environ"));
    } catch (IOException e) {
      return new byte[0];
    }
    byte[] padded = new byte[environ.length + 1];
    System.arraycopy(environ, 0, padded, 1, environ.length);
    return padded;
  }

  private static int indexOf(byte[] haystack, byte[] needle) {
    outer:
    for (int i = 0; i + needle.length <= haystack.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (haystack[i + j] != needle[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }

  /** Pids of {@code handles} that are still running: alive and not a zombie awaiting its reaper. */
  public static List<Long> running(Stream<ProcessHandle> handles) {
    return handles.filter(ProcessTree::isRunning).map(ProcessHandle::pid).toList();
  }

  /** Alive and not a zombie. */
  public static boolean isRunning(ProcessHandle handle) {
    return handle.isAlive() && ProcStat.read(handle.pid()).map(s -> !s.isZombie()).orElse(false);
  }
}
