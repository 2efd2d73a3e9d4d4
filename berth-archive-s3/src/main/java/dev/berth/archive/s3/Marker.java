package dev.berth.archive.s3;

import dev.berth.core.session.ArchiveRef;
import dev.berth.core.session.SessionId;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;
import tools.jackson.core.JacksonException;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.json.JsonMapper;

/**
 * The marker {@code <generation>.json}: the commit point of an archive, written last and only if
 * absent. It names the data object that holds the bytes and says the rest of the {@link ArchiveRef}
 * (size, digest, commit time, contents), so listing reads no archive.
 *
 * <p>Format 1: {@code {"format":1,"session":…,"generation":…,"data":…,"sizeBytes":…,"sha256":…,
 * "createdAt":…,"contents":[…]}}, {@code data} the data object's name in the session's folder,
 * {@code createdAt} an ISO-8601 UTC instant. Reading is strict: a body that is not exactly this,
 * names another session or generation than its key, or a data object outside its folder, is
 * unreadable.
 */
record Marker(String data, ArchiveRef ref) {
  static final int FORMAT = 1;
  private static final Pattern SHA256 = Pattern.compile("[0-9a-f]{64}");

  /**
   * Strict: a field unknown, missing, null or given twice, or anything after the object, makes the
   * body unreadable rather than half read.
   */
  private static final JsonMapper MAPPER =
      JsonMapper.builder()
          .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
          .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
          .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
          .enable(DeserializationFeature.FAIL_ON_MISSING_CREATOR_PROPERTIES)
          .enable(DeserializationFeature.FAIL_ON_NULL_CREATOR_PROPERTIES)
          .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
          .build();

  /**
   * The body as it is stored; field names are the format. Built only if it holds together, so a
   * body that reads is one this store could have written.
   */
  record Body(
      int format,
      String session,
      long generation,
      String data,
      long sizeBytes,
      String sha256,
      String createdAt,
      List<String> contents) {
    Body {
      boolean sound =
          format == FORMAT
              && ArchiveKeys.isDataName(data)
              && data.startsWith(generation + ".")
              && SHA256.matcher(sha256).matches()
              && contents.stream().allMatch(Objects::nonNull);
      if (!sound) {
        throw new IllegalArgumentException("not a marker of format " + FORMAT);
      }
    }

    static Body of(SessionId session, String data, ArchiveRef ref) {
      return new Body(
          FORMAT,
          session.value(),
          ref.generation(),
          data,
          ref.sizeBytes(),
          ref.sha256(),
          ref.createdAt().toString(),
          ref.contents());
    }
  }

  byte[] write(SessionId session) {
    return MAPPER.writeValueAsBytes(Body.of(session, data, ref));
  }

  /** The marker the body holds, or empty when it is unreadable or describes another archive. */
  static Optional<Marker> read(byte[] body, SessionId session, long generation, String uri) {
    try {
      Body b = MAPPER.readValue(body, Body.class);
      if (!b.session().equals(session.value()) || b.generation() != generation) {
        return Optional.empty(); // copied or moved from another key
      }
      Instant createdAt = Instant.parse(b.createdAt());
      return Optional.of(
          new Marker(
              b.data(),
              new ArchiveRef(generation, uri, b.sizeBytes(), b.sha256(), createdAt, b.contents())));
    } catch (JacksonException | DateTimeParseException | IllegalArgumentException e) {
      return Optional.empty();
    }
  }

  /** Whether {@code other} is the archive this marker commits: a ref never changes its digest. */
  boolean describes(ArchiveRef other) {
    return ref.sha256().equals(other.sha256()) && ref.sizeBytes() == other.sizeBytes();
  }
}
