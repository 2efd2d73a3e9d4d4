package dev.berth.cli;

import java.util.Locale;
import java.util.OptionalInt;
import picocli.CommandLine;

/**
 * The key that detaches {@code berth attach}: a control character written {@code ctrl-]} or {@code
 * ^]} ({@code ctrl-a}…{@code ctrl-z}, {@code ctrl-@}, {@code ctrl-[}, {@code ctrl-\}, {@code
 * ctrl-]}, {@code ctrl-^}, {@code ctrl-_}), or {@code none}. The default is Ctrl-] (byte 0x1d), as
 * in telnet: rarely needed by shells and editors, unlike Ctrl-C, Ctrl-D or Ctrl-P.
 *
 * @param value the byte, absent for {@code none}
 */
record DetachKey(OptionalInt value) {

  static final String DEFAULT = "ctrl-]";

  static DetachKey parse(String text) {
    String key = text.strip().toLowerCase(Locale.ROOT);
    if (key.equals("none")) {
      return new DetachKey(OptionalInt.empty());
    }
    String rest =
        key.startsWith("ctrl-") ? key.substring(5) : key.startsWith("^") ? key.substring(1) : null;
    if (rest != null && rest.length() == 1) {
      char c = Character.toUpperCase(rest.charAt(0));
      if (c >= '@' && c <= '_') {
        return new DetachKey(OptionalInt.of(c & 0x1f));
      }
    }
    throw new IllegalArgumentException(
        "'"
            + text
            + "' is not a detach key; write ctrl-X (or ^X) for a letter or one of @[\\]^_,"
            + " or none");
  }

  /** How to press it, as {@code Ctrl-]}. */
  String describe() {
    return value.isEmpty()
        ? "nothing (detach key disabled)"
        : "Ctrl-" + (char) (value.getAsInt() | 0x40);
  }

  /** Reads {@code --detach-key}. */
  static final class Converter implements CommandLine.ITypeConverter<DetachKey> {
    @Override
    public DetachKey convert(String value) {
      try {
        return parse(value);
      } catch (IllegalArgumentException e) {
        throw new CommandLine.TypeConversionException(e.getMessage());
      }
    }
  }
}
