package dev.berth.agent.shell;

/**
 * The shell has not read its earlier input for a while and the input queue is full, so this input
 * was refused, none of it written. The shell is alive: a program holds the terminal in raw mode
 * without reading it. In canonical (line) mode this does not happen, because the terminal drops
 * what does not fit in a line instead of blocking the writer.
 */
public final class ShellInputBlockedException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public ShellInputBlockedException(String message) {
    super(message);
  }
}
