package dev.berth.agent.http;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The questions a terminal emulator answers by typing, as xterm would answer them, found in text:
 * the test's independent view of what must not reach a replaying terminal (cursor position and
 * status reports, device attributes, OSC colour reads).
 */
final class TerminalQueries {

  private static final Pattern QUERY =
      Pattern.compile("\u001b\\[[?>=]?[0-9;]*[cn]|\u001b\\][0-9;]*;\\?(\u0007|\u001b\\\\)");

  private TerminalQueries() {}

  static List<String> in(String text) {
    List<String> found = new ArrayList<>();
    Matcher m = QUERY.matcher(text);
    while (m.find()) {
      found.add(m.group().replace("\u001b", "ESC"));
    }
    return found;
  }
}
