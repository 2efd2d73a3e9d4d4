package dev.berth.agent.archive;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.berth.agent.archive.EntryNames.Problem;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Optional;
import java.util.Set;

/**
 * The symlink rule both sides share: a target is relative, non-empty, free of control characters,
 * and, resolved segment by segment from the link's own directory, stays below the root without
 * being the root itself, and never passes through another symlink of the archive on the way (the
 * last segment may be one). Without links in the middle, this lexical resolution is exactly what
 * the kernel does, so no chain of links can climb out (kubectl cp CVE-2019-11251, CPython
 * gh-149486, Rust zip CVE-2025-29787). A link's own directory is a real directory: entries below a
 * symlink are refused before this check runs.
 */
final class LinkTargets {

  private LinkTargets() {}

  /**
   * @param path the link's own (valid) path
   * @param links the paths of the archive's symlinks known so far
   */
  static Optional<Problem> problem(
      String path, String target, Set<String> links, ArchiveLimits limits) {
    if (target.isEmpty()) {
      return bad(Violation.BAD_NAME, "the symlink target is empty");
    }
    if (target.chars().anyMatch(c -> c < 0x20 || c == 0x7f || c == 0xfffd)) {
      return bad(Violation.BAD_NAME, "the symlink target contains a control character");
    }
    if (target.getBytes(UTF_8).length > limits.maxPathBytes()) {
      return bad(
          Violation.PATH_TOO_LONG,
          "the symlink target is longer than " + limits.maxPathBytes() + " bytes");
    }
    if (target.startsWith("/")) {
      return bad(Violation.LINK_ESCAPES, "the symlink target \"" + target + "\" is absolute");
    }
    return resolve(path, target, links);
  }

  private static Optional<Problem> resolve(String path, String target, Set<String> links) {
    Deque<String> stack = new ArrayDeque<>();
    String parent = EntryNames.parent(path);
    if (!parent.isEmpty()) {
      for (String s : parent.split("/")) {
        stack.addLast(s);
      }
    }
    for (String segment : target.split("/")) {
      if (segment.isEmpty() || segment.equals(".")) {
        continue;
      }
      String here = String.join("/", stack);
      if (links.contains(here)) {
        return bad(
            Violation.LINK_ESCAPES,
            "the symlink target \"" + target + "\" resolves through the symlink \"" + here + "\"");
      }
      if (!segment.equals("..")) {
        stack.addLast(segment);
      } else if (stack.pollLast() == null) {
        return bad(Violation.LINK_ESCAPES, "the symlink target \"" + target + "\" leaves the root");
      }
    }
    if (stack.isEmpty()) {
      return bad(
          Violation.LINK_ESCAPES, "the symlink target \"" + target + "\" is the root itself");
    }
    return Optional.empty();
  }

  private static Optional<Problem> bad(Violation violation, String detail) {
    return Optional.of(new Problem(violation, detail));
  }
}
