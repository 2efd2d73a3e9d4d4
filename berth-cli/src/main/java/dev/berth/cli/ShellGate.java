package dev.berth.cli;

import java.util.OptionalInt;

/**
 * Whether the attached session's shell is gone. Once it exited, {@code berth attach} offers a new
 * one: Enter starts it (the key goes to the session, whose agent starts a shell on the next input),
 * the detach key detaches, and other keys are dropped rather than typed into a shell the user did
 * not ask for.
 */
final class ShellGate {

  private volatile OptionalInt exited = OptionalInt.empty();

  void exited(int status) {
    exited = OptionalInt.of(status);
  }

  /** The exit status of the shell that is gone, or empty while one runs. */
  OptionalInt exitStatus() {
    return exited;
  }

  /**
   * What of {@code input} goes to the session: all of it while a shell runs; once it exited, only
   * an Enter, which asks for the new shell.
   */
  byte[] admit(byte[] input) {
    if (exited.isEmpty()) {
      return input;
    }
    for (byte b : input) {
      if (b == '\r' || b == '\n') {
        exited = OptionalInt.empty();
        return new byte[] {'\r'};
      }
    }
    return new byte[0];
  }
}
