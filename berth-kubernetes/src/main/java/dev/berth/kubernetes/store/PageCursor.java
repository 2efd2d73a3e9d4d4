package dev.berth.kubernetes.store;

import dev.berth.core.error.InvalidValueException;
import dev.berth.core.session.Session;
import dev.berth.core.session.SessionId;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Base64;
import java.util.Comparator;

/**
 * A session's place in the listing order, {@code (createdAt, id)}, and the page token that carries
 * it: URL-safe base64 of {@code k1 <ISO-8601 createdAt> <id>}, opaque to clients. A page starts
 * strictly after the token's place, so sessions created or changed between pages never make a
 * client skip or repeat the others.
 */
record PageCursor(Instant createdAt, String id) implements Comparable<PageCursor> {
  private static final String VERSION = "k1";
  private static final Comparator<PageCursor> ORDER =
      Comparator.comparing(PageCursor::createdAt).thenComparing(PageCursor::id);

  static PageCursor of(Session s) {
    return new PageCursor(s.createdAt(), s.id().value());
  }

  @Override
  public int compareTo(PageCursor other) {
    return ORDER.compare(this, other);
  }

  String token() {
    String key = VERSION + " " + createdAt + " " + id;
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
      String[] parts = key.split(" ", 3);
      if (parts.length == 3 && parts[0].equals(VERSION)) {
        return new PageCursor(Instant.parse(parts[1]), new SessionId(parts[2]).value());
      }
    } catch (IllegalArgumentException | DateTimeParseException | InvalidValueException e) {
      // Falls through to the error below: the token was not issued by this store.
    }
    throw new InvalidValueException(
        "page token \"" + token + "\" was not issued by this store; list again without a token");
  }
}
