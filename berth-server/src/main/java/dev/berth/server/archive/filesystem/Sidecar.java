package dev.berth.server.archive.filesystem;

import dev.berth.core.session.ArchiveRef;
import dev.berth.core.session.SessionId;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;
import tools.jackson.core.JacksonException;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.json.JsonMapper;

/**
 * The sidecar {@code <generation>.json} beside an archive: the parts of its {@link ArchiveRef} that
 * the file itself does not say (digest, commit time, contents), so that listing needs no reading of
 * archives. Written before the archive is renamed into place, so every visible archive is already
 * described.
 *
 * <p>Format 1: {@code {"format":1,"session":…,"generation":…,"sizeBytes":…,"sha256":…,
 * "createdAt":…,"contents":[…]}}, {@code createdAt} an ISO-8601 UTC instant with up to nanosecond
 * precision. The uri is not stored; it follows from session and generation. Reading is strict: a
 * body that is not exactly this, or that names another session or generation than its place, is
 * unreadable.
 */
final class Sidecar {
  static final int FORMAT = 1;
  private static final Pattern SHA256 = Pattern.compile("[0-9a-f]{64}");

  private static final JsonMapper MAPPER =
      JsonMapper.builder()
          .enable(
              DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES,
              DeserializationFeature.FAIL_ON_MISSING_CREATOR_PROPERTIES,
              DeserializationFeature.FAIL_ON_NULL_CREATOR_PROPERTIES,
              DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES,
              DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
          .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
          .build();

  /** The body as it is written; field names are the wire format. */
  record Body(
      int format,
      String session,
      long generation,
      long sizeBytes,
      String sha256,
      String createdAt,
      List<String> contents) {}

  private Sidecar() {}

  static byte[] write(SessionId session, ArchiveRef ref) {
    return MAPPER.writeValueAsBytes(
        new Body(
            FORMAT,
            session.value(),
            ref.generation(),
            ref.sizeBytes(),
            ref.sha256(),
            ref.createdAt().toString(),
            ref.contents()));
  }

  /** The ref the body describes, or empty when it is unreadable or describes another archive. */
  static Optional<ArchiveRef> read(byte[] body, SessionId session, long generation, String uri) {
    try {
      Body b = MAPPER.readValue(body, Body.class);
      if (b.format() != FORMAT
          || !session.value().equals(b.session())
          || b.generation() != generation
          || !SHA256.matcher(b.sha256()).matches()
          || b.contents().stream().anyMatch(c -> c == null)) {
        return Optional.empty();
      }
      return Optional.of(
          new ArchiveRef(
              generation,
              uri,
              b.sizeBytes(),
              b.sha256(),
              Instant.parse(b.createdAt()),
              b.contents()));
    } catch (JacksonException | DateTimeParseException | IllegalArgumentException e) {
      return Optional.empty();
    }
  }
}
