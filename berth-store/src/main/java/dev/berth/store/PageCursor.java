package dev.berth.store;

import dev.berth.core.error.InvalidValueException;
import dev.berth.core.session.Session;
import dev.berth.core.session.SessionId;
import dev.berth.core.store.Page;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * A session's place in the listing order, {@code (createdAt, id)}, and the page token that carries
 * it: URL-safe base64 of {@code 1:<createdAt in epoch nanoseconds>:<id>}, opaque to clients. A page
 * starts strictly after the token's place, so sessions created or changed between pages never make
 * a client skip or repeat the others.
 *
 * <p>A listing fetches one item more than the page holds: that item only tells whether another page
 * follows, so a token is issued only when there is more, without a second read to count.
 */
public record PageCursor(Instant createdAt, String id) implements Comparable<PageCursor> {
  private static final String VERSION = "1";
  private static final long NANOS_PER_SECOND = 1_000_000_000L;
  private static final Comparator<PageCursor> ORDER =
      Comparator.comparing(PageCursor::createdAt).thenComparing(PageCursor::id);

  /** A listed item with its place in the order. */
  public record Keyed<T>(T item, PageCursor cursor) {}

  /** The place of {@code s}, by its own creation time and id. */
  public static PageCursor of(Session s) {
    return new PageCursor(s.createdAt(), s.id().value());
  }

  /**
   * The page of the first {@code limit} of {@code fetched} (which asked for {@code limit + 1}
   * items, in order), with the token of its last item when more were fetched.
   */
  public static <T> Page<T> page(List<Keyed<T>> fetched, int limit) {
    List<Keyed<T>> items = fetched.subList(0, Math.min(limit, fetched.size()));
    Optional<String> next =
        fetched.size() > limit
            ? Optional.of(items.get(items.size() - 1).cursor().token())
            : Optional.empty();
    return new Page<>(items.stream().map(Keyed::item).toList(), next);
  }

  @Override
  public int compareTo(PageCursor other) {
    return ORDER.compare(this, other);
  }

  /** The token of this place; a session's creation time is within what epoch nanoseconds hold. */
  public String token() {
    long nanos =
        Math.addExact(
            Math.multiplyExact(createdAt.getEpochSecond(), NANOS_PER_SECOND), createdAt.getNano());
    String key = VERSION + ":" + nanos + ":" + id;
    return Base64.getUrlEncoder()
        .withoutPadding()
        .encodeToString(key.getBytes(StandardCharsets.UTF_8));
  }

  /**
   * The cursor of {@code token}.
   *
   * @throws InvalidValueException when the token was not issued by this store
   */
  public static PageCursor parse(String token) {
    try {
      String key = new String(Base64.getUrlDecoder().decode(token), StandardCharsets.UTF_8);
      String[] parts = key.split(":", 3);
      if (parts.length == 3 && parts[0].equals(VERSION)) {
        return new PageCursor(
            Instant.ofEpochSecond(0, Long.parseLong(parts[1])), new SessionId(parts[2]).value());
      }
    } catch (IllegalArgumentException | InvalidValueException e) {
      // Falls through to the error below: the token was not issued by this store.
    }
    throw new InvalidValueException(
        "page token \"" + token + "\" was not issued by this store; list again without a token");
  }
}
