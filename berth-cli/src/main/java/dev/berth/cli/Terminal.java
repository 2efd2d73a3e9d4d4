package dev.berth.cli;

import java.io.IOException;
import java.util.Optional;

/** The user's terminal as {@code berth attach} needs it. */
interface Terminal {

  /** A terminal size. */
  record Size(int cols, int rows) {}

  /** Whether standard input is a terminal (a TTY); attach refuses to run otherwise. */
  boolean isInteractive();

  /**
   * Whether standard output is a terminal: then output replayed to it must not ask it anything (its
   * answers would be typed into the user's shell).
   */
  default boolean outputIsTerminal() {
    return false;
  }

  /** The current size, when it can be read. */
  Optional<Size> size();

  /**
   * Puts the terminal in raw mode (no echo, no line editing, no signals from keys: every byte goes
   * to the session).
   *
   * @return restores the mode as it was; idempotent
   * @throws IOException when the mode cannot be changed
   */
  Handle rawMode() throws IOException;

  /** Calls {@code onResize} whenever the size may have changed, until closed. */
  Handle watchResize(Runnable onResize);

  /**
   * Undoes what returned it (puts the terminal back, stops watching); safe to call more than once
   * and from a shutdown hook.
   */
  interface Handle extends AutoCloseable {
    @Override
    void close();
  }
}
