package dev.berth.agent.shell;

import dev.berth.agent.isolation.Signals;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The shell integration that lets a fresh bash come back as the one before it: the state of a shell
 * is captured into a directory of the runtime ({@code shell-state/}), which a snapshot archives
 * with {@code home/} and {@code tmp/}, and a shell started on a runtime directory that holds a
 * capture restores it before its first prompt. Running processes are never preserved: a restored
 * shell is a new process with no jobs.
 *
 * <h2>How</h2>
 *
 * <p>{@link #prepare} writes an rcfile the agent owns ({@code shell-state/rc.bash}, rewritten at
 * every start) and has bash read it with {@code --rcfile} instead of {@code ~/.bashrc}. The rcfile
 * reads {@code ~/.bashrc} itself, restores the newest complete capture (see {@link #RESTORED}), and
 * installs a capture function that writes variables ({@code declare -p}, exported ones being the
 * environment), functions, aliases, shell options, umask and the working directory, and appends the
 * history ({@code HISTFILE} is {@code shell-state/history}). It runs as the last entry of {@code
 * PROMPT_COMMAND}, so what is on disk is never older than the last prompt, and on SIGUSR1. The
 * capture uses only builtins: no fork, no output, {@code $?} untouched. It stays cheap at every
 * prompt: the lists of variables and functions to save are sorted again only when they changed, and
 * the files are written over in place, never truncated (ext4 and XFS start writing back a truncated
 * file when it is closed, which made prompts wait for the disk).
 *
 * <h2>Files</h2>
 *
 * <p>Captures alternate between two slots, {@code state.0} and {@code state.1}, each framed by a
 * header and a trailer that carry its generation (a counter that goes on across restores) and a
 * nonce drawn for that capture; the header also carries its time. A slot ends at the trailer of its
 * own generation and nonce: what an earlier, longer capture left after it is never read, and no
 * variable's value can end a capture early (the nonce is drawn after the values were set). A
 * capture cut short (a kill, a full disk) leaves the other slot complete; the newest complete slot
 * is the state. Slots of format 1 (before in-place writes: no nonce, trailer last) are still read.
 * The price of writing in place: a power loss in the middle of the disk's writeback of a slot can
 * leave pages of two captures under a matching header and trailer; the restore then evaluates what
 * it can (a line that fails is skipped). A kill or a full disk cannot. The files are bash code that
 * the restored shell evaluates, so no fork is needed to write them; a slot that is not complete is
 * never evaluated, and a state that cannot be read starts a clean shell with a one-line notice.
 *
 * <h2>A fresh capture and its bound</h2>
 *
 * <p>bash runs a trap only between commands, and at the prompt only when readline is woken by a
 * signal it handles itself: SIGUSR1 alone stays pending until the next command line. {@link
 * #capture} therefore sends SIGUSR1 and then SIGWINCH (the rcfile sets a no-op WINCH trap when
 * {@code ~/.bashrc} set none), and at the prompt the capture runs within milliseconds. While a
 * foreground job runs, the traps wait for it to end; after the timeout {@link #capture} answers
 * with the capture of the last prompt, which is as old as the job: everything the job could not
 * change (it runs in a child process) is in it, and so is the command line that started it.
 *
 * <p>The rest of the runtime directory is the caller's: this class reads and writes only {@code
 * shell-state/}.
 */
public final class ShellState {
  /** The directory of a runtime that holds its shell state. */
  public static final String DIRECTORY = "shell-state";

  /** What a restored bash gets back through this integration, besides its files. */
  public static final List<String> RESTORED =
      List.of(
          "cwd",
          "environment",
          "shell variables",
          "functions",
          "aliases",
          "shell options",
          "history");

  static final String RC_FILE = "rc.bash";
  static final List<String> SLOTS = List.of("state.0", "state.1");

  private static final Logger LOG = LoggerFactory.getLogger(ShellState.class);
  private static final String RESOURCE = "berth-shell.bash";
  // Format 2 carries a nonce and is written in place (its trailer may be followed by an older,
  // longer capture's rest); format 1, from before, was truncated at each write.
  private static final Pattern HEADER =
      Pattern.compile(
          "# berth-shell-state ([12]) ([0-9]{1,18}) ([0-9]{1,12})[.,]([0-9]{1,9})(?: ([0-9]{1,40}))?\n");
  private static final int SCAN_BUFFER = 64 << 10;
  // A format 2 slot is scanned for its trailer: one larger than any real capture (a session can
  // plant a huge sparse file) is no capture, so that a poll never reads gigabytes.
  private static final long MAX_SCANNED_SLOT = 16L << 20;
  private static final int HEADER_BYTES = 128;
  private static final int TRAILER_BYTES = 32;
  private static final long POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

  private final Path directory;
  private final ShellSpec spec;
  private final boolean integrated;
  private final boolean restoring;

  private ShellState(Path directory, ShellSpec spec, boolean integrated, boolean restoring) {
    this.directory = directory;
    this.spec = spec;
    this.integrated = integrated;
    this.restoring = restoring;
  }

  /**
   * A capture on disk.
   *
   * @param generation counts the captures of a runtime, across restores
   * @param time when the shell wrote it, by the shell's clock
   * @param fresh whether it was written after the {@link #capture} call that returned it began
   */
  public record Capture(long generation, Instant time, boolean fresh) {}

  /**
   * Prepares {@code shell} to run with the integration in {@code runtimeDirectory}: creates {@code
   * shell-state/} and writes the rcfile. A {@code shell-state/} that exists already came with the
   * runtime directory from an archive: the shell will restore it (or, when no capture in it can be
   * read, start clean and say so). Only bash is integrated; any other shell is returned as it is,
   * with nothing to restore.
   *
   * @param runtimeDirectory the runtime's own directory; {@code shell-state/} lives in it, and
   *     saved paths under the directory a state was captured in move here with it
   * @throws UncheckedIOException when the directory or the rcfile cannot be written
   */
  public static ShellState prepare(Path runtimeDirectory, ShellSpec shell) {
    Path root = runtimeDirectory.toAbsolutePath().normalize();
    return prepare(root, root, root.resolve(DIRECTORY), shell);
  }

  /**
   * Like {@link #prepare(Path, ShellSpec)} for a shell that sees its files at other paths (inside a
   * sandbox): the rcfile names {@code insideRoot} and {@code insideDirectory}, which are where the
   * shell finds the runtime directory and {@code shell-state/}. Inside a sandbox they never change
   * from one incarnation to the next, so a restored state needs no path moved.
   */
  public static ShellState prepare(
      Path runtimeDirectory, Path insideRoot, Path insideDirectory, ShellSpec shell) {
    Path root = runtimeDirectory.toAbsolutePath().normalize();
    Path directory = root.resolve(DIRECTORY);
    if (!isBash(shell.command())) {
      return new ShellState(directory, shell, false, false);
    }
    boolean restoring = Files.isDirectory(directory);
    try {
      Files.createDirectories(directory);
      Path rc = directory.resolve(RC_FILE);
      Path temp = directory.resolve(RC_FILE + ".tmp");
      // The directory is the workload's to write, and the agent may be root: a file planted
      // there under the temporary name (a symlink to a host file, say) is removed, never
      // followed, and the rename replaces whatever rc.bash is without following it either.
      Files.deleteIfExists(temp);
      Files.write(
          temp,
          rcFile(insideDirectory, insideRoot, restoring).getBytes(StandardCharsets.UTF_8),
          StandardOpenOption.CREATE_NEW,
          StandardOpenOption.WRITE,
          LinkOption.NOFOLLOW_LINKS);
      move(temp, rc);
      List<String> command = new ArrayList<>();
      command.add(shell.command().get(0));
      command.add("--rcfile");
      command.add(insideDirectory.resolve(RC_FILE).toString());
      command.addAll(shell.command().subList(1, shell.command().size()));
      ShellState state = new ShellState(directory, shell.withCommand(command), true, restoring);
      if (restoring) {
        // Not which capture: reading one here could block on a FIFO the workload planted (the
        // shell reads its capture itself, inside its sandbox).
        LOG.info("the shell of {} restores its last capture, if any", root.getFileName());
      }
      return state;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot prepare the shell state in " + directory, e);
    }
  }

  /** The spec to start: the shell with the rcfile when integrated, else the one given. */
  public ShellSpec spec() {
    return spec;
  }

  /** {@code shell-state/}: the shell must be able to write it (a writable path of its sandbox). */
  public Path directory() {
    return directory;
  }

  /** Whether the shell is bash with this integration. */
  public boolean integrated() {
    return integrated;
  }

  /** Whether {@code shell-state/} was there before: the shell restores rather than starts. */
  public boolean restoring() {
    return restoring;
  }

  /**
   * What this shell's captures preserve, for {@code archive.contents}; empty when not integrated.
   */
  public List<String> contents() {
    return integrated ? RESTORED : List.of();
  }

  /** The newest complete capture on disk, if any. */
  public Optional<Capture> latest() {
    Optional<Capture> newest = Optional.empty();
    for (String slot : SLOTS) {
      Optional<Capture> capture = read(directory.resolve(slot));
      if (capture.isPresent()
          && (newest.isEmpty() || capture.get().generation() > newest.get().generation())) {
        newest = capture;
      }
    }
    return newest;
  }

  /**
   * Asks {@code shell} for a fresh capture and waits up to {@code timeout} for it. At the prompt it
   * comes within milliseconds; while a foreground job runs it does not come before the job ends,
   * and the answer is the last prompt's capture ({@code fresh} false). Never interrupts or changes
   * what the shell runs.
   *
   * @return the newest capture, empty when the shell has written none (it never reached a prompt,
   *     or it is not integrated)
   */
  public Optional<Capture> capture(ShellProcess shell, Duration timeout) {
    Optional<Capture> before = latest();
    if (!integrated || !shell.isAlive()) {
      return before;
    }
    long known = before.map(Capture::generation).orElse(0L);
    Signals.toProcess(shell.pid(), Signals.SIGUSR1);
    Signals.toProcess(shell.pid(), Signals.SIGWINCH);
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      Optional<Capture> now = latest();
      if (now.isPresent() && now.get().generation() > known) {
        Capture fresh = now.get();
        return Optional.of(new Capture(fresh.generation(), fresh.time(), true));
      }
      if (System.nanoTime() - deadline >= 0 || !shell.isAlive()) {
        LOG.info(
            "shell {} did not capture its state within {} (busy: {}); the last is {}",
            shell.pid(),
            timeout,
            shell.busy(),
            now.map(Capture::toString).orElse("none"));
        return now;
      }
      LockSupport.parkNanos(POLL_NANOS);
      if (Thread.currentThread().isInterrupted()) {
        return now;
      }
    }
  }

  static boolean isBash(List<String> command) {
    Path program = Path.of(command.get(0)).getFileName();
    return program != null && program.toString().equals("bash");
  }

  private static String rcFile(Path directory, Path root, boolean restoring) throws IOException {
    String body;
    try (InputStream in = ShellState.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException("the agent's jar lacks " + RESOURCE);
      }
      body = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    return "__berth_state_dir="
        + quote(directory.toString())
        + "\n__berth_root="
        + quote(root.toString())
        + "\n__berth_restoring="
        + (restoring ? 1 : 0)
        + "\n"
        + body;
  }

  /** One slot's capture when it is complete: a header and the trailer of the same generation. */
  private static Optional<Capture> read(Path slot) {
    // The workload writes this directory and the agent may be root: a slot that is not a regular
    // file (a symlink to a host file, a FIFO that would block the read) is no capture. A FIFO
    // swapped in between the check and the open still blocks it; see docs/security.md.
    if (!Files.isRegularFile(slot, LinkOption.NOFOLLOW_LINKS)) {
      return Optional.empty();
    }
    try (SeekableByteChannel channel =
        Files.newByteChannel(
            slot, java.util.Set.of(StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS))) {
      long size = channel.size();
      String head = readAt(channel, 0, (int) Math.min(size, HEADER_BYTES));
      int newline = head.indexOf('\n');
      Matcher header = HEADER.matcher(newline < 0 ? "" : head.substring(0, newline + 1));
      if (!header.matches()) {
        return Optional.empty();
      }
      long generation = Long.parseLong(header.group(2));
      boolean complete =
          header.group(1).equals("1")
              ? endsWithTrailer(channel, newline, size, "\n# end " + generation + "\n")
              : header.group(5) != null
                  && size <= MAX_SCANNED_SLOT
                  && holds(
                      channel, newline, "\n# end " + generation + " " + header.group(5) + "\n");
      if (!complete) {
        return Optional.empty();
      }
      String fraction = (header.group(4) + "000000000").substring(0, 9);
      Instant time =
          Instant.ofEpochSecond(Long.parseLong(header.group(3)), Long.parseLong(fraction));
      return Optional.of(new Capture(generation, time, false));
    } catch (NoSuchFileException e) {
      return Optional.empty();
    } catch (IOException e) {
      LOG.debug("cannot read the shell state {}", slot, e);
      return Optional.empty();
    }
  }

  private static boolean endsWithTrailer(
      SeekableByteChannel channel, int newline, long size, String trailer) throws IOException {
    long start = Math.max(newline + 1, size - TRAILER_BYTES);
    return readAt(channel, start, (int) (size - start)).endsWith(trailer);
  }

  /**
   * Whether {@code marker} occurs from {@code from} on; read in pieces, so that a large capture is
   * never held whole.
   */
  private static boolean holds(SeekableByteChannel channel, long from, String marker)
      throws IOException {
    byte[] chunk = new byte[SCAN_BUFFER];
    ByteBuffer buffer = ByteBuffer.wrap(chunk);
    channel.position(from);
    String carried = "";
    int read;
    while ((read = channel.read(buffer.clear())) >= 0) {
      String window = carried + new String(chunk, 0, read, StandardCharsets.ISO_8859_1);
      if (window.contains(marker)) {
        return true;
      }
      // The marker may straddle two reads: the window's last bytes begin the next one.
      carried = window.substring(Math.max(0, window.length() - marker.length() + 1));
    }
    return false;
  }

  private static String readAt(SeekableByteChannel channel, long position, int length)
      throws IOException {
    ByteBuffer buffer = ByteBuffer.allocate(length);
    channel.position(position);
    int read = 0;
    while (buffer.hasRemaining() && read >= 0) {
      read = channel.read(buffer);
    }
    return new String(buffer.array(), 0, buffer.position(), StandardCharsets.ISO_8859_1);
  }

  private static void move(Path from, Path to) throws IOException {
    try {
      Files.move(from, to, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (AtomicMoveNotSupportedException e) {
      Files.move(from, to, StandardCopyOption.REPLACE_EXISTING);
    }
  }

  private static String quote(String value) {
    return "'" + value.replace("'", "'\\''") + "'";
  }
}
