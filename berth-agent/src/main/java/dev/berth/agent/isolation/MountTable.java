package dev.berth.agent.isolation;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** This process's mount namespace, as {@code /proc/self/mountinfo} lists it. */
final class MountTable {
  private MountTable() {}

  /** Whether {@code volume} is a mount point in this process's mount namespace. */
  static boolean mounted(Path volume) throws IOException {
    Path parent = volume.toAbsolutePath().getParent();
    if (parent == null || !Files.isDirectory(parent)) {
      return false;
    }
    String wanted = parent.toRealPath().resolve(volume.getFileName()).toString();
    for (String line : Files.readAllLines(Path.of("/proc/self/mountinfo"))) {
      String[] fields = line.split(" ");
      if (fields.length > 4 && unescape(fields[4]).equals(wanted)) {
        return true;
      }
    }
    return false;
  }

  /** mountinfo writes space, tab, newline and backslash as three octal digits after a backslash. */
  private static String unescape(String field) {
    StringBuilder out = new StringBuilder(field.length());
    for (int i = 0; i < field.length(); i++) {
      char c = field.charAt(i);
      if (c == '\\' && i + 3 < field.length()) {
        try {
          out.append((char) Integer.parseInt(field.substring(i + 1, i + 4), 8));
          i += 3;
          continue;
        } catch (NumberFormatException e) {
          // Not an escape: kept as it is.
        }
      }
      out.append(c);
    }
    return out.toString();
  }
}
