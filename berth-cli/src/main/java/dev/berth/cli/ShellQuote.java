package dev.berth.cli;

import java.util.List;
import java.util.regex.Pattern;

/**
 * Joins arguments into one POSIX shell command line that the session's shell splits back into
 * exactly those arguments: a word of only safe characters stays as it is, anything else is put in
 * single quotes, with each embedded single quote written as {@code '\''}.
 */
final class ShellQuote {

  private static final Pattern SAFE = Pattern.compile("[A-Za-z0-9_@%+=:,./-]+");

  private ShellQuote() {}

  static String join(List<String> arguments) {
    if (arguments.isEmpty()) {
      throw new IllegalArgumentException("a command needs at least one word");
    }
    return String.join(" ", arguments.stream().map(ShellQuote::quote).toList());
  }

  static String quote(String word) {
    if (SAFE.matcher(word).matches()) {
      return word;
    }
    return "'" + word.replace("'", "'\\''") + "'";
  }
}
