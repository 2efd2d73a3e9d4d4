package dev.berth.core.store;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One page of results; {@code nextPageToken} is present when more may follow. Tokens are opaque
 * keyset cursors: items created or changed while a client pages never make it skip or repeat the
 * items that existed throughout.
 */
public record Page<T>(List<T> items, Optional<String> nextPageToken) {
  public Page {
    items = List.copyOf(items);
    Objects.requireNonNull(nextPageToken, "nextPageToken");
  }
}
