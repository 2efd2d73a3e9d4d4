package dev.berth.agent.host;

import dev.berth.agent.execution.ExecutionOutputs;
import dev.berth.agent.execution.ExecutionRunner;
import dev.berth.agent.isolation.LaunchPlan;
import dev.berth.agent.isolation.NetworkMode;
import dev.berth.agent.isolation.Sandbox;
import dev.berth.agent.isolation.SessionUser;
import dev.berth.agent.isolation.WritablePaths;
import dev.berth.agent.output.OutputLog;
import dev.berth.agent.output.OutputSink;
import dev.berth.agent.shell.ShellProcess;
import dev.berth.agent.shell.ShellSpec;
import dev.berth.agent.shell.ShellState;
import dev.berth.core.session.SessionId;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Optional;
import java.util.random.RandomGenerator;

/**
 * What a runtime has open and running, by how far it got. One value replaces another whole (a
 * restore turns {@link Awaiting} into {@link Live}), so that no half-installed mix of log, shell
 * and plan is ever visible.
 */
sealed interface Workload {

  /** The session's home as a sandboxed workload sees it. */
  Path SANDBOX_HOME = SessionUser.HOME;

  /** Where a sandboxed workload sees its runtime directory's other parts (the shell state). */
  Path SANDBOX_ROOT = Path.of("/run/berth");

  /**
   * Provisioned to receive an archive: nothing runs and not even the output log is open, because
   * the restore replaces {@code state/}, the log's directory included, whole.
   */
  record Awaiting() implements Workload {}

  /** Found on disk by a restarted host: the output stays readable, the processes died with it. */
  record Remains(OutputLog output) implements Workload {}

  /**
   * A shell on its PTY in its sandbox, with its output log and its executions.
   *
   * @param outputStart where the shell's first byte lands in the log: 0 in a fresh runtime, the
   *     archived log's end in a restored one (so cursors taken before the checkpoint stay valid)
   */
  record Live(
      OutputLog output,
      long outputStart,
      ShellState shellState,
      LaunchPlan plan,
      ShellProcess shell,
      ExecutionRunner executions,
      ShellLauncher launcher)
      implements Workload {

    /**
     * The same runtime with a new shell in place of one that exited: same sandbox, output log and
     * executions, and a shell state prepared afresh, so that the new shell starts from the last
     * capture (the one its predecessor took at its last prompt) like a restored one.
     */
    Live withNewShell() {
      ShellState fresh = launcher.prepare();
      ShellProcess next = launcher.start(fresh, plan);
      return new Live(output, outputStart, fresh, plan, next, executions, launcher);
    }

    /**
     * Opens the output log in {@code state/output} and starts the shell with the {@link ShellState}
     * integration on {@code state}: a {@code state/} that came from an archive gives the shell back
     * what it had. A failure closes whatever was opened before it.
     */
    static Live start(
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
        Path home = state.resolve("home");
        Path shellStateDirectory = state.resolve(ShellState.DIRECTORY);
        // Only home/, tmp/ (the shell's /tmp) and shell-state/ are writable under the sandbox: the
        // workload cannot touch its own output log. Inside it they have fixed paths, the same in
        // every incarnation, so that absolute paths written before a snapshot hold after it.
        WritablePaths writable =
            WritablePaths.of(home, shellStateDirectory)
                .withTmp(state.resolve("tmp"))
                .withTarget(home, SANDBOX_HOME)
                .withTarget(shellStateDirectory, SANDBOX_ROOT.resolve(ShellState.DIRECTORY));
        boolean confined = sandbox.confines();
        ShellSpec defaults = ShellSpec.defaults(confined ? SANDBOX_HOME : home, config.shell());
        if (confined) {
          defaults =
              defaults
                  .withVariable("USER", SessionUser.INSIDE_NAME)
                  .withVariable("LOGNAME", SessionUser.INSIDE_NAME);
        }
        ShellLauncher launcher =
            new ShellLauncher(
                state,
                defaults,
                confined,
                new MeteredSink(output, NodeMeters.OutputKind.SHELL, meters),
                meters);
        ShellState shellState = launcher.prepare();
        ShellSpec spec = shellState.spec();
        plan =
            SandboxSteps.reported(
                meters,
                NodeMeters.SandboxFailure.CONFINEMENT,
                () ->
                    sandbox.plan(
                        planName, spec.command(), writable, config.limits(), networkLimit));
        ShellProcess shell = launcher.start(shellState, plan);
        ExecutionRunner executions =
            new ExecutionRunner(session, spec, plan, outputs, clock, RandomGenerator.getDefault());
        return new Live(output, outputStart, shellState, plan, shell, executions, launcher);
      } catch (RuntimeException e) {
        if (plan != null) {
          plan.close();
        }
        output.close();
        throw e;
      }
    }
  }

  /**
   * An agent CLI's session: the byte log and transcript its prompts write, the credential proxy
   * that alone holds the provider's token, the sandbox its runs start in, and the prompt runner.
   *
   * @param outputStart where this incarnation's first byte lands in the log (as {@link Live})
   */
  record Agent(
      OutputLog output,
      long outputStart,
      LaunchPlan plan,
      dev.berth.agent.proxy.CredentialProxy proxy,
      dev.berth.agent.agentcli.PromptRunner prompts,
      dev.berth.agent.agentcli.TranscriptLog transcript)
      implements Workload {}

  /**
   * How a runtime's shell is prepared and started, kept so that a shell that exited can be
   * replaced.
   *
   * @param sink where the shell's output goes: the runtime's log, metered
   */
  record ShellLauncher(
      Path state, ShellSpec defaults, boolean confined, OutputSink sink, NodeMeters meters) {
    ShellState prepare() {
      return confined
          ? ShellState.prepare(
              state, SANDBOX_ROOT, SANDBOX_ROOT.resolve(ShellState.DIRECTORY), defaults)
          : ShellState.prepare(state, defaults);
    }

    ShellProcess start(ShellState prepared, LaunchPlan plan) {
      return SandboxSteps.reported(
          meters,
          NodeMeters.SandboxFailure.SPAWN,
          () -> ShellProcess.start(prepared.spec(), plan, sink));
    }
  }

  /** The output log, once there is one. */
  default Optional<OutputLog> log() {
    return switch (this) {
      case Awaiting awaiting -> Optional.empty();
      case Remains remains -> Optional.of(remains.output());
      case Live live -> Optional.of(live.output());
      case Agent agent -> Optional.of(agent.output());
    };
  }

  /** The agent's parts, when this is an agent session's running workload. */
  default Optional<Agent> agent() {
    return this instanceof Agent agent ? Optional.of(agent) : Optional.empty();
  }

  /** The running shell and what goes with it, when there is one. */
  default Optional<Live> live() {
    return this instanceof Live live ? Optional.of(live) : Optional.empty();
  }
}
