package dev.berth.agent.host;

import java.util.Locale;

/**
 * What the host reports to its operators, as it happens: output captured and launches the sandbox
 * failed. The port the host calls; the node's Micrometer registry is one adapter, {@link #NONE}
 * (tests, the pod agent) another. What is read rather than reported (sessions hosted, shells
 * running) the adapter asks the {@link SessionHost} for at each scrape.
 *
 * <p>Every label is a closed set of values, never a session, tenant or token: the number of series
 * stays the same however many sessions a node hosts.
 */
public interface NodeMeters {

  /** Reports nothing. */
  NodeMeters NONE =
      new NodeMeters() {
        @Override
        public void outputCaptured(OutputKind kind, int bytes) {}

        @Override
        public void sandboxFailed(SandboxFailure reason) {}
      };

  /** {@code bytes} of a workload's output were captured into its log. */
  void outputCaptured(OutputKind kind, int bytes);

  /** A launch was refused or failed in the sandbox, for {@code reason}. */
  void sandboxFailed(SandboxFailure reason);

  /** Whose output it is. */
  enum OutputKind {
    /** A shell session's terminal. */
    SHELL,
    /** An execution's stdout and stderr. */
    EXECUTION,
    /** An agent session's prompts. */
    AGENT;

    public String wireName() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /** Which step of a launch the sandbox refused or failed. */
  enum SandboxFailure {
    /** The runtime's own disk could not be made or mounted. */
    DISK,
    /** The confinement could not be prepared: cgroup, session uid, namespaces, network, files. */
    CONFINEMENT,
    /** The process could not be started under a prepared confinement. */
    SPAWN,
    /** Refused: the workload needs a sandbox this node cannot give (an agent session). */
    UNCONFINED;

    public String wireName() {
      return name().toLowerCase(Locale.ROOT);
    }
  }
}
