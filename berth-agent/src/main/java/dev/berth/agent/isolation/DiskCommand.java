package dev.berth.agent.isolation;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs the programs that make, check, mount and unmount state images (mkfs.ext4, e2fsck, mount,
 * fuse2fs and their unmounters), each to its end within {@value #COMMAND_SECONDS} seconds.
 */
final class DiskCommand {
  private static final long COMMAND_SECONDS = 30;
  private static final int SAID_CHARS = 2000;

  private DiskCommand() {}

  /** Runs {@code argv} to its end and returns what it said; a failure says it in the exception. */
  static String run(List<String> argv) throws IOException {
    // A file, not a pipe: fuse2fs's daemon would hold a pipe open for as long as it serves.
    Path said = Files.createTempFile("berth-disk-", ".out");
    try {
      Process process =
          new ProcessBuilder(argv)
              .redirectErrorStream(true)
              .redirectOutput(said.toFile())
              .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
              .start();
      awaitEnd(process, argv);
      if (process.exitValue() != 0) {
        String output = new String(Files.readAllBytes(said), StandardCharsets.UTF_8).trim();
        throw new IOException(
            String.join(" ", argv)
                + " failed (exit "
                + process.exitValue()
                + "): "
                + output.substring(0, Math.min(output.length(), SAID_CHARS)));
      }
      String output = new String(Files.readAllBytes(said), StandardCharsets.UTF_8);
      return output.substring(0, Math.min(output.length(), SAID_CHARS));
    } finally {
      Files.deleteIfExists(said);
    }
  }

  private static void awaitEnd(Process process, List<String> argv) throws IOException {
    boolean done;
    try {
      done = process.waitFor(COMMAND_SECONDS, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new IOException(argv.get(0) + " was interrupted", e);
    }
    if (!done) {
      process.destroyForcibly();
      throw new IOException(String.join(" ", argv) + " did not finish in " + COMMAND_SECONDS + "s");
    }
  }
}
