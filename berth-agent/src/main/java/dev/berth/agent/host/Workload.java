package dev.berth.agent.host;

import dev.berth.agent.execution.ExecutionRunner;
import dev.berth.agent.isolation.LaunchPlan;
import dev.berth.agent.isolation.SessionUser;
import dev.berth.agent.output.OutputLog;
import dev.berth.agent.output.OutputSink;
import dev.berth.agent.shell.ShellProcess;
import dev.berth.agent.shell.ShellSpec;
import dev.berth.agent.shell.ShellState;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * What a runtime has open and running, by how far it got: the seam between a runtime and what it
 * runs. One value replaces another whole (a restore turns {@link Awaiting} into {@link Live} or
 * {@link Agent}), so that no half-installed mix of log, shell and plan is ever visible. {@link
 * ShellWorkload} starts a shell's, {@link AgentWorkload} an agent session's; {@link ShellSlot} and
 * {@link AgentPrompts} run the commands on each.
 */
sealed interface Workload {

  /** The session's home as a sandboxed workload sees it. */
  Path SANDBOX_HOME = SessionUser.HOME;

  /** Where a sandboxed workload sees its runtime directory's other parts (the shell state). */
  Path SANDBOX_ROOT = Path.of("/run/berth");

  /** How long a shell gets between SIGHUP and SIGKILL, as the original agent did. */
  Duration STOP_GRACE = Duration.ofSeconds(5);

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
  }

  /**
   * An agent CLI's session: the byte log and transcript its prompts write, the credential proxy
   * process that alone holds the provider's token, the sandbox its runs start in, and the prompt
   * runner.
   *
   * @param outputStart where this incarnation's first byte lands in the log (as {@link Live})
   * @param proxy the host's own credential proxy; none where it runs beside the host (a pod's
   *     sidecar, see {@link AgentWorkload.ProxyPlace})
   */
  record Agent(
      OutputLog output,
      long outputStart,
      LaunchPlan plan,
      dev.berth.agent.proxy.@Nullable ProxyProcess proxy,
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

  /** The sandbox the workload runs in, once it has one. */
  default Optional<LaunchPlan> launchPlan() {
    return switch (this) {
      case Live live -> Optional.of(live.plan());
      case Agent agent -> Optional.of(agent.plan());
      case Awaiting awaiting -> Optional.empty();
      case Remains remains -> Optional.empty();
    };
  }

  /**
   * Where this incarnation's first byte lands in its log ({@link Live} and {@link Agent} say
   * where); 0 where nothing ran.
   */
  default long outputStart() {
    return 0L;
  }

  /**
   * Stops what runs (idempotent); its logs stay open, so that streams read to their end. A paused
   * tree is thawed first: it would not act on SIGHUP until SIGKILL.
   */
  default void stop() {
    switch (this) {
      case Live live -> {
        live.plan().thaw();
        live.executions().close();
        live.shell().terminate(STOP_GRACE);
        live.plan().close();
      }
      case Agent agent -> {
        agent.plan().thaw();
        agent.prompts().close();
        dev.berth.agent.proxy.ProxyProcess proxy = agent.proxy();
        if (proxy != null) {
          proxy.close();
        }
        agent.plan().close();
      }
      case Awaiting awaiting -> {}
      case Remains remains -> {}
    }
  }
}
