package dev.berth.agent.isolation;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;

/** Removal of the agent's own scratch directories (a plan's /etc files, the probe's home). */
final class ScratchDirectories {
  private ScratchDirectories() {}

  /**
   * Deletes {@code root} and everything in it, as far as it can. What is left holds no secret (the
   * sandbox's passwd, group, resolv.conf, seccomp program) and the next start makes new ones, so a
   * failure is not worth failing a plan's close for.
   */
  static void delete(Path root) {
    try (var paths = Files.walk(root)) {
      paths.sorted(Comparator.reverseOrder()).forEach(ScratchDirectories::deleteOne);
    } catch (IOException | UncheckedIOException e) {
      return;
    }
  }

  private static void deleteOne(Path path) {
    try {
      Files.deleteIfExists(path);
    } catch (IOException e) {
      return;
    }
  }
}
