package dev.berth.server.session;

import java.util.function.LongSupplier;

/**
 * The highest store epoch one place saw: the node, a pod's agent, the archive store.
 *
 * @param source where it was read, e.g. {@code node} or {@code archives}
 */
public record HighWaterMark(String source, long epoch) {

  /** Where a mark is read from; {@code read} may throw when the place cannot be reached. */
  public record Source(String name, LongSupplier read) {}
}
