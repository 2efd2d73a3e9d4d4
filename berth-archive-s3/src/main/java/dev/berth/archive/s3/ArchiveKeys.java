package dev.berth.archive.s3;

import dev.berth.core.session.ArchiveRef;
import dev.berth.core.session.SessionId;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The names of a store's objects under its prefix, and its archive uris. One folder per session; in
 * it {@code <generation>.json} (the marker, see {@link Marker}) and the archive bytes in {@code
 * <generation>.<owner>.<token>.tar.zst}. The data name is new for every upload (a random token), so
 * two uploads of one generation never write the same object and the loser cannot overwrite the
 * winner's bytes; the owner in it says which store instance wrote it, for the sweep.
 */
record ArchiveKeys(String bucket, String prefix) {
  static final String MARKER_SUFFIX = ".json";
  static final String DATA_SUFFIX = ".tar.zst";
  static final Pattern OWNER = Pattern.compile("[A-Za-z0-9_-]{1,64}");
  private static final String GENERATION = "([1-9][0-9]{0,18})";
  private static final Pattern MARKER_NAME = Pattern.compile(GENERATION + "\\.json");
  private static final Pattern DATA_NAME =
      Pattern.compile(GENERATION + "\\.(" + OWNER.pattern() + ")\\.([0-9a-f]{32})\\.tar\\.zst");
  private static final Pattern SESSION_GENERATION = Pattern.compile("([0-9a-f]{32})/" + GENERATION);

  String folder(SessionId session) {
    return prefix + session.value() + "/";
  }

  String marker(SessionId session, long generation) {
    return folder(session) + generation + MARKER_SUFFIX;
  }

  String data(SessionId session, long generation, String owner, String token) {
    return folder(session) + dataName(generation, owner, token);
  }

  static String dataName(long generation, String owner, String token) {
    return generation + "." + owner + "." + token + DATA_SUFFIX;
  }

  String uri(SessionId session, long generation) {
    return "s3://" + bucket + "/" + prefix + session.value() + "/" + generation;
  }

  /** What {@code key} is in this store's layout, if anything. */
  Optional<Entry> parse(String key) {
    if (!key.startsWith(prefix)) {
      return Optional.empty();
    }
    String rest = key.substring(prefix.length());
    int slash = rest.indexOf('/');
    if (slash != 32) {
      return Optional.empty();
    }
    String sessionValue = rest.substring(0, slash);
    String name = rest.substring(slash + 1);
    if (!sessionValue.chars().allMatch(c -> (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
      return Optional.empty();
    }
    SessionId session = new SessionId(sessionValue);
    Matcher marker = MARKER_NAME.matcher(name);
    if (marker.matches()) {
      return generation(marker.group(1)).map(g -> new MarkerEntry(session, g));
    }
    Matcher data = DATA_NAME.matcher(name);
    if (data.matches()) {
      return generation(data.group(1))
          .map(g -> new DataEntry(session, g, name, data.group(2), data.group(3)));
    }
    return Optional.empty();
  }

  /** Where a ref points to in this store, if its uri is one of this store's. */
  Optional<Location> locate(ArchiveRef archive) {
    String base = "s3://" + bucket + "/" + prefix;
    if (!archive.uri().startsWith(base)) {
      return Optional.empty();
    }
    Matcher m = SESSION_GENERATION.matcher(archive.uri().substring(base.length()));
    if (!m.matches()) {
      return Optional.empty();
    }
    return generation(m.group(2))
        .filter(g -> g == archive.generation())
        .map(g -> new Location(new SessionId(m.group(1)), g));
  }

  static boolean isDataName(String name) {
    return DATA_NAME.matcher(name).matches();
  }

  private static Optional<Long> generation(String digits) {
    try {
      return Optional.of(Long.parseLong(digits));
    } catch (NumberFormatException e) {
      return Optional.empty(); // 19 digits past Long.MAX_VALUE: not a generation this store wrote
    }
  }

  record Location(SessionId session, long generation) {}

  /** An object of this store's layout. */
  sealed interface Entry {
    SessionId session();

    long generation();
  }

  record MarkerEntry(SessionId session, long generation) implements Entry {}

  /** Archive bytes: {@code name} is the object's name in its session's folder. */
  record DataEntry(SessionId session, long generation, String name, String owner, String token)
      implements Entry {}
}
