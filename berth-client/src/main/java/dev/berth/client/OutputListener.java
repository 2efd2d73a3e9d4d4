package dev.berth.client;

import java.util.Optional;

/**
 * Receives a followed output stream. All calls come from the follow's own thread, one at a time and
 * in stream order; a listener that blocks holds the stream back (and nothing is lost). An exception
 * thrown from a callback ends the follow with that exception.
 */
public interface OutputListener {

  /** New bytes, contiguous with everything delivered before (overlaps already removed). */
  void output(OutputEvent.Chunk chunk);

  /**
   * The stream reset: the bytes before {@code reset.nextOffset()} are not coming. For a session's
   * stream the client re-read the log from 0 as the contract asks; {@code reread} holds that read,
   * whose bytes replace everything delivered so far, and the stream continues from its {@code
   * nextOffset}. It is one read, so at most the server's cap (1 MiB): the rest of the log up to its
   * end follows as {@link #output} chunks, so the listener never holds more than it shows. An
   * execution's stream has no read route: {@code reread} is empty and the stream continues from
   * {@code reset.nextOffset()}.
   */
  default void reset(OutputEvent.Reset reset, Optional<ReadResult> reread) {}

  /** The follow's connection state changed. */
  default void state(StreamState state) {}
}
