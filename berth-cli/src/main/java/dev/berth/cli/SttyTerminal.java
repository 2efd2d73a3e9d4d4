package dev.berth.cli;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The terminal through {@code stty}, the portable way to change a POSIX terminal's mode from a JVM
 * (which has no termios binding): {@code stty -g} saves the mode, {@code stty raw -echo} sets raw
 * mode, {@code stty <saved>} restores it, {@code stty size} reads the size; each runs with its
 * standard input redirected from {@code /dev/tty}, the controlling terminal. Whether standard input
 * is a terminal is asked the same way with the JVM's own standard input inherited: {@code stty -g}
 * fails on a pipe or a file.
 */
final class SttyTerminal implements Terminal {

  static final File TTY = new File("/dev/tty");

  private static final long STTY_TIMEOUT_SECONDS = 5;

  static List<String> saveCommand() {
    return List.of("stty", "-g");
  }

  static List<String> rawCommand() {
    return List.of("stty", "raw", "-echo");
  }

  static List<String> restoreCommand(String saved) {
    return List.of("stty", saved.strip());
  }

  static List<String> sizeCommand() {
    return List.of("stty", "size");
  }

  /** Reads {@code stty size}'s answer, {@code "<rows> <cols>"}. */
  static Optional<Size> parseSize(String answer) {
    String[] parts = answer.strip().split("\\s+");
    if (parts.length != 2) {
      return Optional.empty();
    }
    try {
      int rows = Integer.parseInt(parts[0]);
      int cols = Integer.parseInt(parts[1]);
      return rows > 0 && cols > 0 ? Optional.of(new Size(cols, rows)) : Optional.empty();
    } catch (NumberFormatException e) {
      return Optional.empty();
    }
  }

  @Override
  public boolean outputIsTerminal() {
    try {
      String target =
          java.nio.file.Files.readSymbolicLink(java.nio.file.Path.of("/proc/self/fd/1")).toString();
      return target.startsWith("/dev/pts/") || target.startsWith("/dev/tty");
    } catch (IOException | UnsupportedOperationException e) {
      return false;
    }
  }

  @Override
  public boolean isInteractive() {
    try {
      return run(saveCommand(), ProcessBuilder.Redirect.INHERIT).isPresent();
    } catch (IOException e) {
      return false;
    }
  }

  @Override
  public Optional<Size> size() {
    try {
      return run(sizeCommand(), ProcessBuilder.Redirect.from(TTY)).flatMap(SttyTerminal::parseSize);
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  @Override
  public Handle rawMode() throws IOException {
    String saved =
        run(saveCommand(), ProcessBuilder.Redirect.from(TTY))
            .orElseThrow(() -> new IOException("stty -g cannot read the terminal's mode"));
    if (run(rawCommand(), ProcessBuilder.Redirect.from(TTY)).isEmpty()) {
      throw new IOException("stty raw -echo failed");
    }
    AtomicBoolean restored = new AtomicBoolean();
    return () -> {
      if (restored.compareAndSet(false, true)) {
        try {
          run(restoreCommand(saved), ProcessBuilder.Redirect.from(TTY));
        } catch (IOException e) {
          System.err.println("berth: could not restore the terminal; run 'stty sane'");
        }
      }
    };
  }

  @Override
  public Handle watchResize(Runnable onResize) {
    return ResizeWatcher.start(onResize, this::size);
  }

  /** Runs an stty command; its output when it succeeds, empty when it fails. */
  private static Optional<String> run(List<String> command, ProcessBuilder.Redirect input)
      throws IOException {
    Process process =
        new ProcessBuilder(command)
            .redirectInput(input)
            .redirectError(ProcessBuilder.Redirect.DISCARD)
            .start();
    try (InputStream out = process.getInputStream()) {
      String answer = new String(out.readAllBytes(), StandardCharsets.UTF_8);
      if (!process.waitFor(STTY_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        return Optional.empty();
      }
      return process.exitValue() == 0 ? Optional.of(answer) : Optional.empty();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
      return Optional.empty();
    }
  }
}
