package dev.berth.agent.archive;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The path rules both sides share: the writer leaves out what breaks them, the restorer refuses it.
 * A path is relative, {@code /}-separated, without a trailing slash, of non-empty segments other
 * than {@code .} and {@code ..}, free of control characters and of the replacement character (a
 * name that was not valid UTF-8), within the byte, segment and depth limits.
 */
final class EntryNames {
  private static final Pattern DRIVE = Pattern.compile("^[A-Za-z]:.*", Pattern.DOTALL);

  /** A broken rule: which one and a sentence about it. */
  record Problem(Violation violation, String detail) {}

  private EntryNames() {}

  static Optional<Problem> problem(String path, ArchiveLimits limits) {
    if (path.isEmpty()) {
      return bad(Violation.BAD_NAME, "the name is empty");
    }
    if (path.startsWith("/") || DRIVE.matcher(path).matches()) {
      return bad(
          Violation.ABSOLUTE_PATH, "the path is absolute; entries must be relative to the root");
    }
    if (path.chars().anyMatch(c -> c < 0x20 || c == 0x7f || c == 0xfffd)) {
      return bad(Violation.BAD_NAME, "the name contains a control character or invalid UTF-8");
    }
    int bytes = path.getBytes(UTF_8).length;
    if (bytes > limits.maxPathBytes()) {
      return bad(
          Violation.PATH_TOO_LONG,
          "the path is " + bytes + " bytes; the limit is " + limits.maxPathBytes());
    }
    String[] segments = path.split("/", -1);
    if (segments.length > limits.maxDepth()) {
      return bad(
          Violation.PATH_TOO_LONG,
          "the path is " + segments.length + " segments deep; the limit is " + limits.maxDepth());
    }
    for (String segment : segments) {
      Optional<Problem> p = segmentProblem(segment);
      if (p.isPresent()) {
        return p;
      }
    }
    return Optional.empty();
  }

  /** The parent of a valid path, {@code ""} for a top-level one. */
  static String parent(String path) {
    int slash = path.lastIndexOf('/');
    return slash < 0 ? "" : path.substring(0, slash);
  }

  private static Optional<Problem> segmentProblem(String segment) {
    if (segment.equals("..")) {
      return bad(Violation.PARENT_SEGMENT, "the path has a '..' segment");
    }
    if (segment.isEmpty() || segment.equals(".")) {
      return bad(Violation.BAD_NAME, "the path has an empty or '.' segment");
    }
    if (segment.getBytes(UTF_8).length > ArchiveFormat.MAX_SEGMENT_BYTES) {
      return bad(
          Violation.PATH_TOO_LONG,
          "a path segment is longer than " + ArchiveFormat.MAX_SEGMENT_BYTES + " bytes");
    }
    return Optional.empty();
  }

  private static Optional<Problem> bad(Violation violation, String detail) {
    return Optional.of(new Problem(violation, detail));
  }
}
