package dev.berth.core.store;

/**
 * A session lease's fencing token: it grows with every new holder, so a write carrying an older
 * token comes from a holder that lost the lease and is rejected by the store.
 */
public record FencingToken(long value) implements Comparable<FencingToken> {
  public FencingToken {
    if (value < 1) {
      throw new IllegalArgumentException("fencing token must be >= 1, was " + value);
    }
  }

  @Override
  public int compareTo(FencingToken other) {
    return Long.compare(value, other.value);
  }
}
