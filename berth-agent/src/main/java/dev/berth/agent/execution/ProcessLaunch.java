package dev.berth.agent.execution;

import dev.berth.agent.isolation.LaunchPlan;
import dev.berth.agent.isolation.ProcessTree;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * How the node starts a process of a session that runs to completion: a command's {@code bash -c}
 * or a prompt's agent CLI. It leads a session and process group of its own ({@code setsid -w}, so
 * the exit status is the workload's), runs inside the session's launch plan, reads {@code
 * /dev/null}, sees only the environment given to it and the plan's, and carries {@link
 * #TAG_VARIABLE}: what finds the processes it leaves behind once they were reparented out of its
 * tree.
 */
public final class ProcessLaunch {

  /** Tags every process of one execution with its id. */
  public static final String TAG_VARIABLE = "BERTH_EXECUTION";

  private static final List<Path> SETSID =
      List.of(Path.of("/usr/bin/setsid"), Path.of("/bin/setsid"));

  private ProcessLaunch() {}

  /**
   * Starts {@code argv} in {@code workingDirectory} (as the plan's sandbox sees it) with {@code
   * environment}, tagged {@code tag}; its standard error merged into its output when {@code
   * mergeErrors}, else a stream of its own.
   *
   * @throws IOException when the process cannot be started (the caller names what it was)
   * @throws IllegalStateException when setsid (util-linux) is not installed
   */
  public static Process start(
      LaunchPlan plan,
      Path workingDirectory,
      List<String> argv,
      Map<String, String> environment,
      String tag,
      boolean mergeErrors)
      throws IOException {
    List<String> command = new ArrayList<>();
    command.add(setsid().toString());
    command.add("-w");
    command.addAll(argv);
    ProcessBuilder builder =
        new ProcessBuilder(plan.wrap(command, workingDirectory))
            .directory(plan.spawnDirectory(workingDirectory).toFile())
            .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
            .redirectErrorStream(mergeErrors);
    builder.environment().clear();
    builder.environment().putAll(environment);
    builder.environment().putAll(plan.environment());
    builder.environment().put(TAG_VARIABLE, tag);
    return builder.start();
  }

  /**
   * Kills what is left of the execution {@code tag} outside its process tree: processes it left
   * that were reparented (unconfined, nothing else would take them; confined, their PID namespace
   * goes with the sandbox).
   */
  public static void killTagged(String tag) {
    ProcessTree.carrying(TAG_VARIABLE, tag).forEach(ProcessHandle::destroyForcibly);
  }

  /**
   * Kills {@code process}, its descendants and whatever carries its tag. Through the process's own
   * handle, never its pid: once it was reaped, the pid may be another process's.
   */
  public static void killTree(Process process, String tag) {
    if (process.isAlive()) {
      process.toHandle().descendants().forEach(ProcessHandle::destroyForcibly);
      process.destroyForcibly();
    }
    killTagged(tag);
  }

  private static Path setsid() {
    return SETSID.stream()
        .filter(Files::isExecutable)
        .findFirst()
        .orElseThrow(() -> new IllegalStateException("setsid (util-linux) is not installed"));
  }
}
