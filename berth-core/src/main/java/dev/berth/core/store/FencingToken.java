package dev.berth.core.store;

/**
 * A session lease's fencing token: it grows with every new holder, so a write carrying an older
 * token comes from a holder that lost the lease and is rejected by the store.
 *
 * <p>A token is derived from the store's epoch ({@link StoreEpochs}) as well as from the highest
 * token the store issued before ({@link #next}): after a restore of an older store backup the store
 * has forgotten the tokens issued since, but recovery raises the epoch past every epoch seen
 * before, so no token is issued twice.
 */
public record FencingToken(long value) implements Comparable<FencingToken> {
  public FencingToken {
    if (value < 1) {
      throw new IllegalArgumentException("fencing token must be >= 1, was " + value);
    }
  }

  /**
   * The token a new holder gets: above {@code highestIssued}, and at least the first token of
   * {@code epoch}. Each epoch's tokens start at {@code epoch * 2^32 + 1}, so every token of a later
   * epoch is above every token of an earlier one while one session takes fewer than 2^32 leases in
   * one epoch (epochs advance at every start and periodically).
   *
   * @param highestIssued the highest token issued for the session so far, 0 for none
   */
  public static FencingToken next(long highestIssued, long epoch) {
    if (epoch < 0 || epoch >= (1L << 31)) {
      throw new IllegalArgumentException(
          "store epoch must be between 0 and 2^31 - 1, was " + epoch);
    }
    return new FencingToken(Math.max(highestIssued + 1, (epoch << 32) + 1));
  }

  @Override
  public int compareTo(FencingToken other) {
    return Long.compare(value, other.value);
  }
}
