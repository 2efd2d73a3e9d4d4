package dev.berth.protocol.contract;

import dev.berth.core.error.InvalidValueException;
import java.util.OptionalLong;

/**
 * The control plane's store epoch, sent with every request to an agent beside the local-contract
 * headers: the agent keeps the highest it saw, durably, so that a control plane whose store was
 * restored from an older backup finds its epoch below the runtimes' (docs/agent-protocol.md).
 */
public final class StoreEpochHeader {

  public static final String NAME = "X-Berth-Store-Epoch";

  private StoreEpochHeader() {}

  /**
   * The header's epoch; empty when it is absent.
   *
   * @throws InvalidValueException naming the header and its value when it is not a decimal long >=
   *     0
   */
  public static OptionalLong parse(String value) {
    if (value == null || value.isBlank()) {
      return OptionalLong.empty();
    }
    try {
      long epoch = Long.parseLong(value.strip());
      if (epoch >= 0) {
        return OptionalLong.of(epoch);
      }
    } catch (NumberFormatException e) {
      // the one error below names the header and the expected form
    }
    throw new InvalidValueException(
        "header " + NAME + " must be a decimal long >= 0, was \"" + value + "\"");
  }
}
