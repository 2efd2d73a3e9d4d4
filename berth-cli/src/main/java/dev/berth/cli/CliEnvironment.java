package dev.berth.cli;

import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * What the client commands take from the process around them, passed in so that tests can give
 * their own: environment variables, the raw standard streams (output bytes go to {@code stdout}
 * unchanged; picocli's writers carry text), the clock for ages, the user's terminal, and whether
 * the commands own the process (may install shutdown hooks and signal handlers).
 */
record CliEnvironment(
    Map<String, String> variables,
    InputStream stdin,
    OutputStream stdout,
    InstantSource clock,
    Supplier<Terminal> terminal,
    boolean ownsProcess) {

  static CliEnvironment system() {
    return new CliEnvironment(
        System.getenv(),
        System.in,
        new java.io.FileOutputStream(java.io.FileDescriptor.out),
        InstantSource.system(),
        SttyTerminal::new,
        true);
  }

  /** A variable's value, absent when unset or empty. */
  Optional<String> variable(String name) {
    return Optional.ofNullable(variables.get(name)).filter(v -> !v.isEmpty());
  }

  /** {@code $XDG_CONFIG_HOME/berth}, else {@code $HOME/.config/berth}. */
  Path configDirectory() {
    return variable("XDG_CONFIG_HOME")
        .map(Path::of)
        .orElseGet(
            () -> Path.of(variable("HOME").orElse(System.getProperty("user.home")), ".config"))
        .resolve("berth");
  }
}
