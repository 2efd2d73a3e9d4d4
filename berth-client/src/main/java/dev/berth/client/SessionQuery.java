package dev.berth.client;

import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * What {@code GET /sessions} should list.
 *
 * @param tenant only this tenant's sessions (an admin token's filter)
 * @param limit sessions per page, 1 to 1000; without it the server answers with every session
 * @param pageToken where the page starts: a previous page's {@code nextPageToken}
 * @param states only sessions in these public states ({@code active}, {@code idle}, {@code
 *     snapshot}, {@code failed}); empty for any
 * @param deleted list only deleted sessions (with {@code deletedAt} and whether they can still be
 *     recovered) instead of the live ones
 */
public record SessionQuery(
    Optional<String> tenant,
    OptionalInt limit,
    Optional<String> pageToken,
    List<String> states,
    boolean deleted) {

  public static final int MAX_LIMIT = 1000;

  public SessionQuery {
    if (limit.isPresent() && (limit.getAsInt() < 1 || limit.getAsInt() > MAX_LIMIT)) {
      throw new IllegalArgumentException(
          "limit must be between 1 and " + MAX_LIMIT + ", was " + limit.getAsInt());
    }
    states = List.copyOf(states);
  }

  /** Every live session the token may see, in one answer. */
  public static SessionQuery all() {
    return new SessionQuery(
        Optional.empty(), OptionalInt.empty(), Optional.empty(), List.of(), false);
  }

  public SessionQuery tenant(String value) {
    return new SessionQuery(Optional.of(value), limit, pageToken, states, deleted);
  }

  public SessionQuery limit(int value) {
    return new SessionQuery(tenant, OptionalInt.of(value), pageToken, states, deleted);
  }

  public SessionQuery pageToken(String value) {
    return new SessionQuery(tenant, limit, Optional.of(value), states, deleted);
  }

  public SessionQuery states(List<String> values) {
    return new SessionQuery(tenant, limit, pageToken, values, deleted);
  }

  /** Deleted sessions only. */
  public SessionQuery onlyDeleted() {
    return new SessionQuery(tenant, limit, pageToken, states, true);
  }
}
