package dev.berth.agent.host;

import dev.berth.protocol.problem.AgentReason;

/**
 * The refusals of a hosted runtime's commands that depend on where it stands (awaiting its archive,
 * paused, stopped) or on what it runs (a shell or an agent), each naming the runtime and the way
 * out. One place, so that the shell slot, the agent's prompts and the checkpoint word them alike.
 */
final class RuntimeRefusals {

  private RuntimeRefusals() {}

  static HostRefusal restoring(String runtime, String what) {
    return new HostRefusal(
        409,
        AgentReason.RESTORING,
        "runtime "
            + runtime
            + " awaits the archive it is resumed from and "
            + what
            + "; retry once the restore is done");
  }

  static HostRefusal suspending(String runtime, String what, String restoredBy) {
    return new HostRefusal(
        409,
        AgentReason.SUSPENDING,
        "runtime "
            + runtime
            + " is being suspended and admits no "
            + what
            + "; retry once the session is a snapshot (which "
            + restoredBy
            + " then restores)");
  }

  static HostRefusal notAwaiting(String runtime, RuntimeState state, String action) {
    return new HostRefusal(
        409,
        AgentReason.CONFLICT,
        "runtime "
            + runtime
            + " is "
            + state.wire()
            + ", not awaiting an archive, so nothing may "
            + action
            + "; a restore goes to a runtime provisioned with awaitRestore (remove this one and"
            + " provision a new incarnation)");
  }

  static HostRefusal notPaused(String runtime, RuntimeState state) {
    return new HostRefusal(
        409,
        AgentReason.CONFLICT,
        "runtime " + runtime + " is " + state.wire() + ", not paused for a checkpoint");
  }

  static HostRefusal notAShell(String runtime, String workload) {
    return new HostRefusal(
        409,
        AgentReason.NOT_A_SHELL,
        "runtime "
            + runtime
            + " runs "
            + workload
            + ": it takes prompts (POST /v1/sessions/{sid}/prompts), not terminal input or"
            + " commands");
  }

  static HostRefusal notAnAgent(String runtime, String what) {
    return new HostRefusal(
        409,
        AgentReason.NOT_AN_AGENT,
        "runtime "
            + runtime
            + " runs a shell and "
            + what
            + "; prompts and plugins are for agent sessions");
  }

  static HostRefusal agentMissing(String runtime, String workload) {
    return new HostRefusal(
        409,
        AgentReason.AGENT_MISSING,
        "runtime "
            + runtime
            + " runs "
            + workload
            + " but was provisioned without its agent; provision a new incarnation");
  }

  static HostRefusal runsNoPrompts(String runtime, RuntimeState state) {
    return new HostRefusal(
        503,
        AgentReason.STOPPED,
        "runtime " + runtime + " is " + state.wire() + " and runs no prompts");
  }

  /** The accepted prompts did not run out within the checkpoint's drain. */
  static HostRefusal promptsStillRunning(String runtime, java.time.Duration drain) {
    return new HostRefusal(
        409,
        AgentReason.PROMPTS_RUNNING,
        "runtime "
            + runtime
            + " still runs its accepted prompts after "
            + drain.toMinutes()
            + " min, so it cannot be snapshotted now; the session stays active (retry the snapshot"
            + " later, or cancel the running prompt)");
  }
}
