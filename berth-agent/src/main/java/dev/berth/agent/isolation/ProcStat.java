package dev.berth.agent.isolation;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The fields of {@code /proc/<pid>/stat} that process control needs.
 *
 * <p>The second field, {@code comm}, is the executable name in parentheses and may itself contain
 * spaces and parentheses (a process can name itself {@code "a) b ("}). The only safe split is at
 * the <em>last</em> closing parenthesis; every field after it is a plain number or letter.
 *
 * @param tpgid the foreground process group of the process's controlling terminal, or -1 when it
 *     has none
 */
public record ProcStat(
    long pid, String comm, char state, long ppid, long pgrp, long session, long tpgid) {

  /** The process's stat line, or empty when the process does not exist (anymore). */
  public static Optional<ProcStat> read(long pid) {
    try {
      return Optional.of(parse(Files.readString(Path.of("/proc", Long.toString(pid), "stat"))));
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  /**
   * Parses one stat line.
   *
   * @throws IllegalArgumentException when the line is not a stat line
   */
  public static ProcStat parse(String line) {
    int open = line.indexOf('(');
    int close = line.lastIndexOf(')');
    if (open < 1 || close < open || close + 2 > line.length()) {
      throw new IllegalArgumentException("not a /proc/<pid>/stat line: " + line);
    }
    String[] rest = line.substring(close + 2).split(" ");
    if (rest.length < 6 || rest[0].length() != 1) {
      throw new IllegalArgumentException("not a /proc/<pid>/stat line: " + line);
    }
    return new ProcStat(
        Long.parseLong(line.substring(0, open).trim()),
        line.substring(open + 1, close),
        rest[0].charAt(0),
        Long.parseLong(rest[1]),
        Long.parseLong(rest[2]),
        Long.parseLong(rest[3]),
        Long.parseLong(rest[5]));
  }

  /**
   * When process {@code pid} started, in clock ticks since boot (field 22, {@code starttime}), or
   * empty when the process does not exist (anymore). A pid and this number name one process of this
   * boot: a later process given the same pid started later.
   */
  public static OptionalLong startTicks(long pid) {
    try {
      return OptionalLong.of(
          startTicksOf(Files.readString(Path.of("/proc", Long.toString(pid), "stat"))));
    } catch (IOException | IllegalArgumentException e) {
      return OptionalLong.empty();
    }
  }

  /**
   * Field 22 of one stat line.
   *
   * @throws IllegalArgumentException when the line is not a stat line or is too short
   */
  public static long startTicksOf(String line) {
    int close = line.lastIndexOf(')');
    if (close < 0 || close + 2 > line.length()) {
      throw new IllegalArgumentException("not a /proc/<pid>/stat line: " + line);
    }
    // Fields 3 onward follow the comm; field 22 is the 20th of them.
    String[] rest = line.substring(close + 2).split(" ");
    if (rest.length < 20) {
      throw new IllegalArgumentException("a /proc/<pid>/stat line without field 22: " + line);
    }
    try {
      return Long.parseLong(rest[19].trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("field 22 of a /proc/<pid>/stat line is not a number", e);
    }
  }

  /** Dead but not yet reaped: it holds a pid and nothing else. */
  public boolean isZombie() {
    return state == 'Z' || state == 'X';
  }
}
