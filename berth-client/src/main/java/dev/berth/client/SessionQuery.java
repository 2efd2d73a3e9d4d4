package dev.berth.client;

import java.util.Optional;
import java.util.OptionalInt;

/**
 * What {@code GET /sessions} should list.
 *
 * @param tenant only this tenant's sessions (an admin token's filter)
 * @param limit sessions per page, 1 to 1000 (the server's default is 100)
 * @param pageToken where the page starts: a previous page's {@code nextPageToken}
 */
public record SessionQuery(Optional<String> tenant, OptionalInt limit, Optional<String> pageToken) {

  public static final int MAX_LIMIT = 1000;

  public SessionQuery {
    if (limit.isPresent() && (limit.getAsInt() < 1 || limit.getAsInt() > MAX_LIMIT)) {
      throw new IllegalArgumentException(
          "limit must be between 1 and " + MAX_LIMIT + ", was " + limit.getAsInt());
    }
  }

  /** Every session the token may see, in pages of the server's default size. */
  public static SessionQuery all() {
    return new SessionQuery(Optional.empty(), OptionalInt.empty(), Optional.empty());
  }

  public SessionQuery tenant(String value) {
    return new SessionQuery(Optional.of(value), limit, pageToken);
  }

  public SessionQuery limit(int value) {
    return new SessionQuery(tenant, OptionalInt.of(value), pageToken);
  }

  public SessionQuery pageToken(String value) {
    return new SessionQuery(tenant, limit, Optional.of(value));
  }
}
