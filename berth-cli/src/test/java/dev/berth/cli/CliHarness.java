package dev.berth.cli;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.time.InstantSource;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import picocli.CommandLine;

/**
 * Runs the {@code berth} command line in-process as a user would, with its own environment
 * variables, config directory, stdin, raw stdout and terminal, and captures what it prints.
 */
final class CliHarness {

  static final Instant NOW = Instant.parse("2026-01-02T04:04:05Z");

  final Map<String, String> variables = new HashMap<>();
  final ByteArrayOutputStream stdout = new ByteArrayOutputStream();
  final StringWriter out = new StringWriter();
  final StringWriter err = new StringWriter();
  byte[] stdin = new byte[0];
  FakeTerminal terminal = new FakeTerminal(false);

  CliHarness(Path home) {
    variables.put("HOME", home.toString());
  }

  int run(String... args) {
    CliEnvironment env =
        new CliEnvironment(
            Map.copyOf(variables),
            new ByteArrayInputStream(stdin),
            stdout,
            InstantSource.fixed(NOW),
            () -> terminal,
            false);
    CommandLine cli = BerthCommand.commandLine(env, args);
    cli.setOut(new PrintWriter(out, true));
    cli.setErr(new PrintWriter(err, true));
    return cli.execute(args);
  }

  String stdoutText() {
    return stdout.toString(StandardCharsets.UTF_8);
  }

  /** What was written so far, while the command may still be writing. */
  String stdoutTextSafely() {
    synchronized (stdout) {
      return stdout.toString(StandardCharsets.UTF_8);
    }
  }

  /** A terminal that records what attach does to it. */
  static final class FakeTerminal implements Terminal {
    final boolean interactive;
    final List<String> calls = new CopyOnWriteArrayList<>();
    Optional<Size> size = Optional.of(new Size(100, 30));

    FakeTerminal(boolean interactive) {
      this.interactive = interactive;
    }

    @Override
    public boolean isInteractive() {
      return interactive;
    }

    @Override
    public Optional<Size> size() {
      return size;
    }

    @Override
    public Handle rawMode() throws IOException {
      calls.add("raw");
      return () -> calls.add("restored");
    }

    @Override
    public Handle watchResize(Runnable onResize) {
      calls.add("watching");
      return () -> calls.add("unwatched");
    }
  }
}
