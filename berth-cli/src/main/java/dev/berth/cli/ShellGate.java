package dev.berth.cli;

import java.util.OptionalInt;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Whether the attached session's shell is gone. Once it exited, {@code berth attach} offers a new
 * one: Enter starts it (the key goes to the session, whose agent starts a shell on the next input),
 * the detach key detaches, and other keys are dropped rather than typed into a shell the user did
 * not ask for.
 */
final class ShellGate {

  private final AtomicReference<OptionalInt> exited = new AtomicReference<>(OptionalInt.empty());

  void exited(int status) {
    exited.set(OptionalInt.of(status));
  }

  /** The exit status of the shell that is gone, or empty while one runs. */
  OptionalInt exitStatus() {
    return exited.get();
  }

  /**
   * What of {@code input} goes to the session: all of it while a shell runs; once it exited, only
   * an Enter, which asks for the new shell.
   */
  byte[] admit(byte[] input) {
    if (exited.get().isEmpty()) {
      return input;
    }
    for (byte b : input) {
      if (b == '\r' || b == '\n') {
        exited.set(OptionalInt.empty());
        return new byte[] {'\r'};
      }
    }
    return new byte[0];
  }
}
