package dev.berth.client;

/**
 * Receives an attached terminal's output and control messages. Calls come from the WebSocket's
 * delivery thread, one at a time and in order; the next frame is requested only after a call
 * returns, so a slow listener slows the server down rather than buffering without bound.
 */
public interface AttachListener {

  /** The first message: output starts at {@code offset}. */
  default void attached(long offset) {}

  /** Terminal output, raw, in order. */
  void output(byte[] bytes);

  /** The cursor jumped to {@code nextOffset}: the output before it is not coming. */
  default void reset(long nextOffset) {}

  /**
   * The session's shell exited with {@code status} (after its marker line in the output); the
   * session stays active and the connection open, and the next input starts a new shell.
   *
   * @param shell which shell of the runtime it was, 1 for the first
   */
  default void shellExited(int status, int shell) {}

  /** The server refused an input or a resize ({@code SHELL_EXITED}, say); the connection stays. */
  default void error(String reason, String message) {}

  /** The connection closed, by either side or by a failure; the last call. */
  default void closed(AttachConnection.Closed closed) {}
}
