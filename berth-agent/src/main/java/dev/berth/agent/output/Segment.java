package dev.berth.agent.output;

import java.nio.file.Path;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One segment file of an output log: the bytes from absolute offset {@code start} on, in a file
 * named by that offset ({@code 00000000000000000000.seg}), so a directory listing alone tells which
 * bytes each file holds.
 */
record Segment(long start, Path path) {
  private static final Pattern NAME = Pattern.compile("(\\d{20})\\.seg");

  static Segment in(Path directory, long start) {
    return new Segment(start, directory.resolve(String.format(Locale.ROOT, "%020d.seg", start)));
  }

  /** The segment a file stands for, or empty when its name is not a segment name. */
  static Optional<Segment> of(Path file) {
    Matcher name = NAME.matcher(file.getFileName().toString());
    if (!name.matches()) {
      return Optional.empty();
    }
    try {
      return Optional.of(new Segment(Long.parseLong(name.group(1)), file));
    } catch (NumberFormatException beyondLongRange) {
      return Optional.empty();
    }
  }
}
