package dev.berth.client;

import com.fasterxml.jackson.annotation.JacksonInject;
import com.fasterxml.jackson.annotation.OptBoolean;
import java.util.Optional;
import java.util.OptionalInt;
import tools.jackson.databind.JsonNode;

/**
 * An RFC 9457 problem as the server writes it: the standard members, Berth's stable {@code reason},
 * the original platform's {@code error} (the same message) and the {@code session} it concerns
 * (kept as text: an error is never lost because a field in it is malformed).
 *
 * @param json the document as received, with members this client does not know (such as {@code
 *     acceptedIntentVersion})
 */
public record Problem(
    Optional<String> type,
    Optional<String> title,
    OptionalInt status,
    Optional<String> reason,
    Optional<String> detail,
    Optional<String> error,
    Optional<String> session,
    @JacksonInject(value = Json.RAW, useInput = OptBoolean.FALSE) JsonNode json) {

  /** The human message: {@code detail}, else {@code error}, else {@code title}. */
  public Optional<String> message() {
    return detail.or(() -> error).or(() -> title).filter(s -> !s.isBlank());
  }
}
