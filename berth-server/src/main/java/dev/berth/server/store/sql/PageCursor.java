package dev.berth.server.store.sql;

import dev.berth.core.error.InvalidValueException;
import dev.berth.core.session.SessionId;
import dev.berth.core.store.Page;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Optional;

/**
 * The keyset position a page token carries: the {@code (created_at, id)} of the last session of the
 * previous page. The token is URL-safe base64 of {@code 1:<epoch nanos>:<id>}; clients treat it as
 * opaque.
 *
 * <p>A listing fetches one row more than the page holds: that row only tells whether another page
 * follows, so a token is issued only when there is more, without a second query to count.
 */
record PageCursor(long createdAt, String id) {
  private static final String VERSION = "1";

  /** A listed item with its keyset position. */
  record Keyed<T>(T item, PageCursor cursor) {}

  /**
   * The page of the first {@code limit} of {@code fetched} (which asked for {@code limit + 1}
   * rows), with the token of its last item when more were fetched.
   */
  static <T> Page<T> page(List<Keyed<T>> fetched, int limit) {
    List<Keyed<T>> items = fetched.subList(0, Math.min(limit, fetched.size()));
    Optional<String> next =
        fetched.size() > limit
            ? Optional.of(items.get(items.size() - 1).cursor().token())
            : Optional.empty();
    return new Page<>(items.stream().map(Keyed::item).toList(), next);
  }

  String token() {
    String key = VERSION + ":" + createdAt + ":" + id;
    return Base64.getUrlEncoder()
        .withoutPadding()
        .encodeToString(key.getBytes(StandardCharsets.UTF_8));
  }

  /**
   * The cursor of {@code token}.
   *
   * @throws InvalidValueException when the token was not issued by this store
   */
  static PageCursor parse(String token) {
    try {
      String key = new String(Base64.getUrlDecoder().decode(token), StandardCharsets.UTF_8);
      String[] parts = key.split(":", 3);
      if (parts.length == 3 && parts[0].equals(VERSION)) {
        return new PageCursor(Long.parseLong(parts[1]), new SessionId(parts[2]).value());
      }
    } catch (IllegalArgumentException | InvalidValueException e) {
      // Falls through to the error below: the token was not issued by this store.
    }
    throw new InvalidValueException(
        "page token \"" + token + "\" was not issued by this store; list again without a token");
  }
}
