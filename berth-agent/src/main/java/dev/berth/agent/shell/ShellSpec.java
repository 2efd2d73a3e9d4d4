package dev.berth.agent.shell;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * What to run on a session's PTY and in which context. Executions take their user, {@code HOME},
 * working directory and environment from the same spec, so a command beside the shell sees what the
 * shell sees.
 *
 * <p>The environment is complete, not merged with the agent's: the agent's own variables (its
 * bearer token among them) never reach a workload.
 *
 * @param command the shell and its arguments
 * @param environment every variable the shell starts with
 * @param columns initial width, 1..1000
 * @param rows initial height, 1..1000
 */
public record ShellSpec(
    List<String> command,
    Path home,
    Path workingDirectory,
    Map<String, String> environment,
    int columns,
    int rows) {

  /** The PATH a fresh shell gets: the Debian default for root. */
  public static final String DEFAULT_PATH =
      "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

  public ShellSpec {
    command = List.copyOf(command);
    if (command.isEmpty() || command.get(0).isBlank()) {
      throw new IllegalArgumentException("shell command must name a program, was " + command);
    }
    Objects.requireNonNull(home, "home");
    Objects.requireNonNull(workingDirectory, "workingDirectory");
    if (!home.isAbsolute() || !workingDirectory.isAbsolute()) {
      throw new IllegalArgumentException(
          "home and working directory must be absolute, were " + home + " and " + workingDirectory);
    }
    environment = Map.copyOf(environment);
    checkSize(columns, rows);
  }

  /**
   * {@code /bin/bash} in {@code home}, 80x24, {@code TERM=xterm-256color}, {@code LANG=C.UTF-8} and
   * a standard PATH.
   */
  public static ShellSpec defaults(Path home) {
    return defaults(home, "/bin/bash");
  }

  /**
   * Like {@link #defaults(Path)} with another shell. It runs without {@code -i} or {@code -l}: a
   * shell whose standard input and error are a terminal is interactive already, and a non-login
   * shell reads {@code ~/.bashrc} like a terminal tab does.
   */
  public static ShellSpec defaults(Path home, String shell) {
    Map<String, String> env = new TreeMap<>();
    env.put("HOME", home.toString());
    env.put("PATH", DEFAULT_PATH);
    env.put("TERM", "xterm-256color");
    env.put("LANG", "C.UTF-8");
    env.put("SHELL", shell);
    return new ShellSpec(List.of(shell), home, home, env, 80, 24);
  }

  /** This spec running {@code newCommand} instead, e.g. the shell with more arguments. */
  public ShellSpec withCommand(List<String> newCommand) {
    return new ShellSpec(newCommand, home, workingDirectory, environment, columns, rows);
  }

  /** This spec with {@code name=value} added to (or replaced in) the environment. */
  public ShellSpec withVariable(String name, String value) {
    Map<String, String> env = new TreeMap<>(environment);
    env.put(name, value);
    return new ShellSpec(command, home, workingDirectory, env, columns, rows);
  }

  public static void checkSize(int columns, int rows) {
    if (columns < 1 || columns > 1000 || rows < 1 || rows > 1000) {
      throw new IllegalArgumentException(
          "terminal size must be 1..1000 columns and rows, was " + columns + "x" + rows);
    }
  }
}
