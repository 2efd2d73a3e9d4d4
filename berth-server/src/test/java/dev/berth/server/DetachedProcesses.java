package dev.berth.server;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The processes a test's servers started and left running by design (the local node is detached
 * from the server, and one a server was still starting when it closed writes its node.json only
 * later): found by their command line, which names the test's directory, and stopped.
 */
final class DetachedProcesses {

  private DetachedProcesses() {}

  /** Stops every process whose command line names {@code dir}, and waits for each to exit. */
  static void stopAllUnder(Path dir) {
    String marker = dir.toString();
    // Read from /proc: ProcessHandle.Info has no command line for one as long as the node's.
    List<ProcessHandle> ours =
        ProcessHandle.allProcesses().filter(p -> commandLine(p.pid()).contains(marker)).toList();
    ours.forEach(ProcessHandle::destroy);
    for (ProcessHandle process : ours) {
      process.onExit().completeOnTimeout(process, 30, TimeUnit.SECONDS).join();
      process.destroyForcibly();
    }
  }

  private static String commandLine(long pid) {
    try {
      return new String(
          Files.readAllBytes(Path.of("/proc", Long.toString(pid), "cmdline")),
          StandardCharsets.UTF_8);
    } catch (IOException e) {
      return ""; // gone meanwhile, or not ours to read
    }
  }
}
