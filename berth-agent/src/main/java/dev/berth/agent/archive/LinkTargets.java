package dev.berth.agent.archive;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.berth.agent.archive.EntryNames.Problem;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Optional;
import java.util.Set;

/**
 * The symlink rule both sides share. Links live only below {@code home/} and {@code tmp/}, the
 * workload's own trees: the node's own paths (the output log, the shell state, the executions'
 * logs) and the top-level directories it binds into the sandbox are never links, so the node, which
 * may be root, never follows one. There a target is non-empty and free of control characters, and
 * either absolute (a virtual environment's {@code bin/python3 -> /usr/bin/python3}: only the
 * workload follows it, inside its sandbox, where it could make the same link itself) or relative:
 * resolved segment by segment from the link's own directory it stays inside the link's own tree,
 * and never passes through another symlink of the archive on the way (the last segment may be one).
 * Without links in the middle, this lexical resolution is exactly what the kernel does, so no chain
 * of links can climb out (kubectl cp CVE-2019-11251, CPython gh-149486, Rust zip CVE-2025-29787). A
 * link's own directory is a real directory: entries below a symlink are refused before this check
 * runs.
 */
final class LinkTargets {

  /** The trees that may hold symlinks: the workload's home and {@code /tmp}. */
  static final java.util.List<String> LINK_TREES = java.util.List.of("home", "tmp");

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
    Optional<String> tree = LINK_TREES.stream().filter(t -> path.startsWith(t + "/")).findFirst();
    if (tree.isEmpty()) {
      return bad(
          Violation.LINK_ESCAPES,
          "symlinks are kept only below "
              + String.join("/ and ", LINK_TREES)
              + "/, the workload's own trees; this one is elsewhere");
    }
    if (target.startsWith("/")) {
      return Optional.empty();
    }
    return resolve(path, target, links, tree.get());
  }

  private static Optional<Problem> resolve(
      String path, String target, Set<String> links, String tree) {
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
    if (!stack.peekFirst().equals(tree)) {
      return bad(
          Violation.LINK_ESCAPES,
          "the symlink target \"" + target + "\" leaves " + tree + "/, the link's own tree");
    }
    return Optional.empty();
  }

  private static Optional<Problem> bad(Violation violation, String detail) {
    return Optional.of(new Problem(violation, detail));
  }
}
