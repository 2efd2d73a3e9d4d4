package dev.berth.agent.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Finds processes on this host by a unique word in their command line, e.g. {@code sleep 31337}, so
 * that a test can prove a process it started from inside a sandbox is gone.
 */
public final class HostProcesses {
  private HostProcesses() {}

  /** Pids of running (not zombie) processes whose argv contains {@code word} as one argument. */
  public static List<Long> withArgument(String word) {
    List<Long> pids = new ArrayList<>();
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(Path.of("/proc"), "[0-9]*")) {
      for (Path entry : entries) {
        if (hasArgument(entry, word) && !isZombie(entry)) {
          pids.add(Long.parseLong(entry.getFileName().toString()));
        }
      }
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
    return pids;
  }

  private static boolean hasArgument(Path proc, String word) {
    try {
      String cmdline =
          new String(Files.readAllBytes(proc.resolve("cmdline")), StandardCharsets.UTF_8);
      return List.of(cmdline.split("\0")).contains(word);
    } catch (IOException e) {
      return false;
    }
  }

  private static boolean isZombie(Path proc) {
    try {
      String stat = Files.readString(proc.resolve("stat"));
      char state = stat.charAt(stat.lastIndexOf(')') + 2);
      return state == 'Z' || state == 'X';
    } catch (IOException e) {
      return true;
    }
  }
}
