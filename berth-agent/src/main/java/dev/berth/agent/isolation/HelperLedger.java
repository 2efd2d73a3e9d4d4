package dev.berth.agent.isolation;

import dev.berth.protocol.files.PrivateFiles;
import dev.berth.protocol.json.AgentJson;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;

/**
 * The node's own records of the helper processes it starts beside a session (a network's namespace
 * holder, its slirp4netns, a proxy forwarder): one file per helper in the state directory's {@code
 * helpers/}, written and fsynced before the helper is put to use, removed when the node ends it.
 *
 * <p>Helpers are no descendants of a session's workload, so neither the session's cgroup nor its
 * PID namespace takes them down, and a node killed with SIGKILL left them running, reparented to
 * init. They are made to die with the node where the kernel allows it ({@link SessionNetwork}); the
 * records are the backstop: a node that starts {@link #reapLeftovers() reaps} what its predecessor
 * recorded. A record names a process by its pid <em>and</em> its start time ({@code
 * /proc/<pid>/stat} field 22) in this boot, so a later process that was given the same pid is never
 * touched; nothing is ever matched by a process's name.
 */
public final class HelperLedger {
  /** The records' directory, under the node's state directory. */
  public static final String DIRECTORY = "helpers";

  private static final Logger LOG = LoggerFactory.getLogger(HelperLedger.class);
  private static final JsonMapper JSON = AgentJson.mapper();
  private static final Path BOOT_ID = Path.of("/proc/sys/kernel/random/boot_id");
  private static final long KILL_WAIT_NANOS = TimeUnit.SECONDS.toNanos(5);

  /**
   * One helper as recorded.
   *
   * @param startTicks {@code /proc/<pid>/stat} field 22: when it started, in ticks since boot
   * @param bootId the boot it started in ({@code /proc/sys/kernel/random/boot_id})
   * @param plan the launch plan it serves: {@code berth-<sid>-<incarnation>.<root hash>}, which
   *     names the session and its runtime
   * @param role what it is ({@code holder}, {@code slirp4netns}, {@code forwarder})
   */
  public record Helper(long pid, long startTicks, String bootId, String plan, String role) {}

  /** What a starting node did with one record of its predecessor. */
  public enum Outcome {
    /** The recorded process still ran and was killed. */
    REAPED,
    /** It had ended already, or its pid now belongs to another process: nothing was done. */
    GONE,
    /** It was killed but had not ended five seconds later. */
    STILL_RUNNING
  }

  /** One record a starting node found, and what it did about it. */
  public record Leftover(Helper helper, Outcome outcome) {}

  private final Optional<Path> directory;

  private HelperLedger(Optional<Path> directory) {
    this.directory = directory;
  }

  /** Records kept in {@code directory} (created, private, on the first record). */
  public static HelperLedger at(Path directory) {
    return new HelperLedger(Optional.of(directory));
  }

  /** Keeps no records: for hosts whose root no later host reopens (tests, probes). */
  public static HelperLedger none() {
    return new HelperLedger(Optional.empty());
  }

  /**
   * Records {@code process} as a helper of {@code plan}, durably (the file and the directory are
   * fsynced) before the caller relies on the helper.
   *
   * @throws UncheckedIOException when the record cannot be written: a helper the node could not
   *     find again after a crash must not be used
   */
  void started(Process process, String plan, String role) {
    if (directory.isEmpty()) {
      return;
    }
    OptionalLong ticks = ProcStat.startTicks(process.pid());
    if (ticks.isEmpty()) {
      return; // already gone: nothing to find again
    }
    Helper helper = new Helper(process.pid(), ticks.getAsLong(), bootId(), plan, role);
    Path dir = directory.get();
    try {
      PrivateFiles.createDirectories(dir);
      Path file = dir.resolve(fileName(helper.pid(), helper.startTicks()));
      Path temporary = dir.resolve(file.getFileName() + ".tmp");
      PrivateFiles.write(temporary, JSON.writeValueAsBytes(helper));
      force(temporary);
      Files.move(temporary, file, StandardCopyOption.ATOMIC_MOVE);
      force(dir);
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot record the " + role + " (pid " + process.pid() + ") of " + plan + " in " + dir,
          e);
    }
  }

  /** Forgets {@code process}: the node ended it itself. */
  void ended(Process process) {
    if (directory.isEmpty()) {
      return;
    }
    try (DirectoryStream<Path> files =
        Files.newDirectoryStream(directory.get(), process.pid() + "-*.json")) {
      for (Path file : files) {
        Files.deleteIfExists(file);
      }
    } catch (IOException e) {
      // A stale record only costs the next node a look at /proc: its pid and start time no longer
      // match a running process, or match this very process, which is dead by then.
    }
  }

  /** The records as they are now (what a node that starts would reap). */
  public List<Helper> recorded() {
    List<Helper> helpers = new ArrayList<>();
    if (directory.isEmpty() || !Files.isDirectory(directory.get())) {
      return helpers;
    }
    try (DirectoryStream<Path> files = Files.newDirectoryStream(directory.get(), "*.json")) {
      for (Path file : files) {
        read(file).ifPresent(helpers::add);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list " + directory.get(), e);
    }
    return helpers;
  }

  /**
   * Kills every recorded helper whose pid and start time still match a running process of this
   * boot, logs each, and removes every record. Call it before starting any helper of one's own, and
   * only while holding the state directory (the node's lock): the records are a predecessor's.
   */
  public List<Leftover> reapLeftovers() {
    List<Leftover> found = new ArrayList<>();
    String boot = bootId();
    for (Helper helper : recorded()) {
      Outcome outcome = helper.bootId().equals(boot) ? reap(helper) : Outcome.GONE;
      found.add(new Leftover(helper, outcome));
      if (outcome != Outcome.GONE) {
        LOG.warn(
            "a previous node left the {} of {} running (pid {}): {}",
            helper.role(),
            helper.plan(),
            helper.pid(),
            outcome == Outcome.REAPED ? "killed it" : "killed it, but it is still there");
      }
    }
    directory.ifPresent(HelperLedger::clear);
    long reaped = found.stream().filter(l -> l.outcome() != Outcome.GONE).count();
    if (!found.isEmpty()) {
      LOG.info(
          "{} helper record(s) of a previous node found, {} of them still running and killed",
          found.size(),
          reaped);
    }
    return List.copyOf(found);
  }

  private static Outcome reap(Helper helper) {
    // The handle carries the start time the JDK read, and destroyForcibly checks it again right
    // before the signal: a pid reused between the check below and the kill is not hit either.
    Optional<ProcessHandle> handle = ProcessHandle.of(helper.pid());
    OptionalLong ticks = ProcStat.startTicks(helper.pid());
    boolean same =
        handle.isPresent()
            && ticks.isPresent()
            && ticks.getAsLong() == helper.startTicks()
            && ProcStat.read(helper.pid()).map(s -> !s.isZombie()).orElse(false);
    if (!same) {
      return Outcome.GONE;
    }
    handle.get().destroyForcibly();
    long deadline = System.nanoTime() + KILL_WAIT_NANOS;
    while (ProcessTree.isRunning(handle.get()) && System.nanoTime() - deadline < 0) {
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
    }
    return ProcessTree.isRunning(handle.get()) ? Outcome.STILL_RUNNING : Outcome.REAPED;
  }

  private static Optional<Helper> read(Path file) {
    try {
      return Optional.of(JSON.readValue(Files.readAllBytes(file), Helper.class));
    } catch (IOException | JacksonException e) {
      // Torn by a crash while it was written (the temporary file is never renamed into place):
      // the helper it would name was not in use yet.
      LOG.warn("ignoring the unreadable helper record {}", file);
      return Optional.empty();
    }
  }

  private static void clear(Path dir) {
    if (!Files.isDirectory(dir)) {
      return;
    }
    try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
      for (Path file : files) {
        Files.deleteIfExists(file);
      }
      force(dir);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot clear the helper records in " + dir, e);
    }
  }

  static String fileName(long pid, long startTicks) {
    return pid + "-" + startTicks + ".json";
  }

  private static void force(Path path) throws IOException {
    try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ)) {
      channel.force(true);
    }
  }

  private static String bootId() {
    try {
      return Files.readString(BOOT_ID).strip();
    } catch (IOException e) {
      return "unknown";
    }
  }
}
