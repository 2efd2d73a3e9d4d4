package dev.berth.kubernetes.runtime;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a node does to a pod's emptyDir volumes once the pod is gone. A simulated pod's agent runs
 * as the test's user, and where that is root it mounts each runtime's state image (see the agent's
 * {@code StateDisks}); an agent that was killed (an OOM kill, a lost node) leaves those mounts, so
 * the simulator unmounts whatever is still mounted under the pod's directory.
 */
final class NodeCleanup {
  private static final Pattern OCTAL = Pattern.compile("\\\\([0-7]{3})");

  private NodeCleanup() {}

  /** Lazily unmounts every mount at or under {@code dir}, deepest first. */
  static void unmountUnder(Path dir) {
    String prefix = dir.toAbsolutePath().normalize().toString();
    List<String> mounts;
    try {
      mounts =
          Files.readAllLines(Path.of("/proc/self/mountinfo")).stream()
              .map(line -> unescape(line.split(" ")[4]))
              .filter(point -> point.equals(prefix) || point.startsWith(prefix + "/"))
              .sorted(Comparator.comparingInt(String::length).reversed())
              .toList();
    } catch (IOException e) {
      throw new UncheckedIOException("could not read this host's mounts", e);
    }
    for (String point : mounts) {
      umount(point);
    }
  }

  private static void umount(String point) {
    try {
      Process umount = new ProcessBuilder("umount", "-l", point).inheritIO().start();
      if (!umount.waitFor(30, TimeUnit.SECONDS)) {
        umount.destroyForcibly();
      }
    } catch (IOException e) {
      throw new UncheckedIOException("could not unmount " + point, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** mountinfo escapes space, tab, newline and backslash as three octal digits. */
  private static String unescape(String field) {
    Matcher m = OCTAL.matcher(field);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      m.appendReplacement(
          out, Matcher.quoteReplacement(String.valueOf((char) Integer.parseInt(m.group(1), 8))));
    }
    return m.appendTail(out).toString();
  }
}
