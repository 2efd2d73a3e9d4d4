package dev.berth.agent.shell;

import java.util.OptionalInt;
import org.jspecify.annotations.Nullable;

/**
 * Input or a resize reached a shell that has exited ({@code 503 SHELL_EXITED}, "no live shell").
 * The shell is never restarted behind the caller's back.
 */
public final class ShellExitedException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final @Nullable Integer exitCode;

  public ShellExitedException(String session, OptionalInt exitCode) {
    super(
        "no live shell: the shell of "
            + session
            + " has exited"
            + (exitCode.isPresent() ? " with code " + exitCode.getAsInt() : "")
            + "; start a new runtime to get a fresh one");
    this.exitCode = exitCode.isPresent() ? exitCode.getAsInt() : null;
  }

  /** The shell's exit code, when it was known at the time. */
  public OptionalInt exitCode() {
    return exitCode == null ? OptionalInt.empty() : OptionalInt.of(exitCode);
  }
}
