package dev.berth.agent.host;

import dev.berth.agent.execution.ExecutionOutputs;
import dev.berth.agent.execution.ExecutionRunner;
import dev.berth.agent.isolation.LaunchPlan;
import dev.berth.agent.isolation.NetworkMode;
import dev.berth.agent.isolation.Sandbox;
import dev.berth.agent.isolation.SessionUser;
import dev.berth.agent.isolation.WritablePaths;
import dev.berth.agent.output.OutputLog;
import dev.berth.agent.shell.ShellProcess;
import dev.berth.agent.shell.ShellSpec;
import dev.berth.agent.shell.ShellState;
import dev.berth.core.session.SessionId;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Optional;
import java.util.random.RandomGenerator;

/**
 * Starts a shell runtime's workload ({@link Workload.Live}): its output log, its shell on a PTY in
 * its sandbox with the {@link ShellState} integration, and its executions. The shell counterpart of
 * {@link AgentWorkload}.
 */
final class ShellWorkload {

  private ShellWorkload() {}

  /**
   * Opens the output log in {@code state/output} and starts the shell with the {@link ShellState}
   * integration on {@code state}: a {@code state/} that came from an archive gives the shell back
   * what it had. A failure closes whatever was opened before it.
   */
  static Workload.Live start(
      SessionId session,
      Path state,
      String planName,
      HostConfig config,
      Sandbox sandbox,
      Optional<NetworkMode> networkLimit,
      Clock clock,
      ExecutionOutputs outputs,
      NodeMeters meters) {
    OutputLog output = OutputLog.open(state.resolve("output"), config.outputCapBytes(), clock);
    long outputStart = output.nextOffset();
    LaunchPlan plan = null;
    try {
      boolean confined = sandbox.confines();
      Workload.ShellLauncher launcher =
          new Workload.ShellLauncher(
              state,
              defaults(state, config, confined),
              confined,
              new MeteredSink(output, NodeMeters.OutputKind.SHELL, meters),
              meters);
      ShellState shellState = launcher.prepare();
      ShellSpec spec = shellState.spec();
      WritablePaths writable = writable(state);
      plan =
          SandboxSteps.reported(
              meters,
              NodeMeters.SandboxFailure.CONFINEMENT,
              () ->
                  sandbox.plan(planName, spec.command(), writable, config.limits(), networkLimit));
      ShellProcess shell = launcher.start(shellState, plan);
      ExecutionRunner executions =
          new ExecutionRunner(session, spec, plan, outputs, clock, RandomGenerator.getDefault());
      return new Workload.Live(output, outputStart, shellState, plan, shell, executions, launcher);
    } catch (RuntimeException e) {
      if (plan != null) {
        plan.close();
      }
      output.close();
      throw e;
    }
  }

  /**
   * Only home/, tmp/ (the shell's /tmp) and shell-state/ are writable under the sandbox: the
   * workload cannot touch its own output log. Inside it they have fixed paths, the same in every
   * incarnation, so that absolute paths written before a snapshot hold after it.
   */
  private static WritablePaths writable(Path state) {
    Path home = state.resolve("home");
    Path shellStateDirectory = state.resolve(ShellState.DIRECTORY);
    return WritablePaths.of(home, shellStateDirectory)
        .withTmp(state.resolve("tmp"))
        .withTarget(home, Workload.SANDBOX_HOME)
        .withTarget(shellStateDirectory, Workload.SANDBOX_ROOT.resolve(ShellState.DIRECTORY));
  }

  /** The shell's defaults: a confined shell sees its home at its fixed path, as its own user. */
  private static ShellSpec defaults(Path state, HostConfig config, boolean confined) {
    ShellSpec defaults =
        ShellSpec.defaults(
            confined ? Workload.SANDBOX_HOME : state.resolve("home"), config.shell());
    if (confined) {
      defaults =
          defaults
              .withVariable("USER", SessionUser.INSIDE_NAME)
              .withVariable("LOGNAME", SessionUser.INSIDE_NAME);
    }
    return defaults;
  }
}
