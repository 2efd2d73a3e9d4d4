package dev.berth.agent.host;

import dev.berth.agent.agentcli.AgentPaths;
import dev.berth.agent.agentcli.PromptRunner;
import dev.berth.agent.agentcli.TranscriptLog;
import dev.berth.agent.agentcli.Turn;
import dev.berth.agent.contract.ControlLease;
import dev.berth.agent.execution.ExecutionView;
import dev.berth.agent.isolation.LaunchPlan;
import dev.berth.core.error.NotFoundException;
import dev.berth.protocol.problem.AgentReason;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;

/**
 * An agent runtime's commands, on its {@link Workload.Agent}: prompts, the refresh of its plugin
 * copies, and its transcript. It keeps the session's {@link AgentLaunch} (CLI, model, plugins),
 * which comes with each provision and lives in memory only: a runtime reloaded by a restarted host
 * has none until its next provision brings it again.
 */
final class AgentPrompts {

  private static final Logger LOG = LoggerFactory.getLogger(AgentPrompts.class);

  private final String runtime;
  private final String workloadType;
  private final RuntimeLifecycle lifecycle;
  private final ControlLease lease;
  private final Path state;
  private final Clock clock;
  private volatile @Nullable AgentLaunch launch;
  private final Object pluginRefresh = new Object();

  AgentPrompts(
      String runtime,
      String workloadType,
      RuntimeLifecycle lifecycle,
      ControlLease lease,
      Path state,
      Clock clock,
      @Nullable AgentLaunch launch) {
    this.runtime = runtime;
    this.workloadType = workloadType;
    this.lifecycle = lifecycle;
    this.lease = lease;
    this.state = state;
    this.clock = clock;
    this.launch = launch;
  }

  /** The session's CLI and provider, when a provision brought them. */
  @Nullable AgentLaunch launch() {
    return launch;
  }

  /**
   * Takes the agent launch a provision brings, when this runtime has none (a host restarted). A
   * spent one (its credentials handed to its proxy) is kept: its workload runs, and a repeated
   * provision must not put the token back into the node's memory.
   */
  void adopt(@Nullable AgentLaunch brought) {
    if (brought != null && launch == null) {
      launch = brought;
    }
  }

  /**
   * Forgets the provider's token and the gateway key once the session's proxy has them: what is
   * kept (CLI, model, plugins) is all the prompts need.
   */
  void spend() {
    AgentLaunch held = launch;
    if (held != null) {
      launch = held.withoutCredentials();
    }
  }

  /**
   * Queues a prompt of an agent session; its execution, {@code QUEUED}.
   *
   * @throws HostRefusal 409 NOT_AN_AGENT for a shell session, 409 SUSPENDING while a checkpoint
   *     drains or holds the session, 409 RESTORING while it awaits its archive
   */
  ExecutionView prompt(String prompt, String permissionMode) {
    Workload.Agent agent = admitted();
    AgentLaunch current = launch;
    // The session's model, fixed at create: a turn does not choose its own.
    Optional<String> model = current == null ? Optional.empty() : current.turnModel();
    return agent.prompts().submit(new Turn(prompt, model, permissionMode));
  }

  /**
   * Replaces the session's plugin copies with the marketplace's plugins as they are now (see {@link
   * PluginRefresh}): staged first, then swapped in while the runner holds the session between
   * prompts with no process of it left, then the old copies deleted. The conversation is kept. One
   * refresh of a runtime at a time: they share its work area.
   *
   * @return the plugins refreshed; none for a session created without plugins
   * @throws HostRefusal as {@link #prompt} does, and 409 PROMPTS_RUNNING while a prompt runs or
   *     waits, or a process of the last one does not end
   */
  List<String> refreshPlugins() {
    Workload.Agent agent = admitted();
    AgentLaunch current = launch;
    List<AgentLaunch.Plugin> plugins = current == null ? List.of() : current.plugins();
    if (plugins.isEmpty()) {
      return List.of();
    }
    synchronized (pluginRefresh) {
      try (PluginRefresh refresh =
          PluginRefresh.prepare(
              plugins,
              AgentPaths.under(state).plugins(),
              state.resolve(PluginCopies.WORK),
              runtime,
              agent.plan()::giveToWorkload)) {
        return agent
            .prompts()
            .whileIdle(
                () -> {
                  requireNoProcess(agent.plan());
                  return refresh.swap();
                });
      } catch (PromptRunner.BusyException busy) {
        throw new HostRefusal(
            409,
            AgentReason.PROMPTS_RUNNING,
            "runtime "
                + runtime
                + " "
                + busy.getMessage()
                + ": its plugins are refreshed between prompts; retry once they have run (or cancel"
                + " them)");
      } catch (IllegalStateException closed) {
        throw new HostRefusal(
            503, AgentReason.STOPPED, "runtime " + runtime + " was stopped: " + closed);
      }
    }
  }

  /**
   * Up to {@code max} transcript entries after {@code cursor}. A runtime found on disk after a host
   * restart still shows its transcript; one awaiting its archive has none yet.
   */
  List<JsonNode> transcript(long cursor, int max) {
    Workload current = lifecycle.workload();
    if (current instanceof Workload.Agent agent) {
      return agent.transcript().after(cursor, max);
    }
    if (workloadType.equals("shell")) {
      throw RuntimeRefusals.notAnAgent(runtime, "has no transcript");
    }
    if (current instanceof Workload.Awaiting) {
      throw RuntimeRefusals.restoring(runtime, "has no transcript yet");
    }
    return TranscriptLog.read(state, clock).after(cursor, max);
  }

  /** Waits up to {@code wait} for an entry after {@code cursor}; whether one came. */
  boolean awaitTranscript(long cursor, Duration wait) throws InterruptedException {
    Optional<Workload.Agent> agent = lifecycle.workload().agent();
    if (agent.isEmpty()) {
      Thread.sleep(wait.toMillis());
      return false;
    }
    TranscriptLog transcript = agent.get().transcript();
    // Asked after an empty page: a closed log has nothing more to give, whatever it counted.
    boolean more = !transcript.closed() && transcript.awaitBeyond(cursor, wait);
    if (transcript.closed()) {
      throw new NotFoundException("transcript of " + runtime + ", which is being removed");
    }
    return more;
  }

  /** The agent's parts, when the runtime admits a prompt (as {@link ShellSlot#admitted} input). */
  private Workload.Agent admitted() {
    lease.checkAdmitting();
    synchronized (lifecycle) {
      RuntimeState now = lifecycle.state();
      if (workloadType.equals("shell")) {
        throw RuntimeRefusals.notAnAgent(runtime, "takes no prompts");
      }
      if (now == RuntimeState.AWAITING_RESTORE) {
        throw RuntimeRefusals.restoring(runtime, "admits no prompt yet");
      }
      if (now == RuntimeState.PAUSED) {
        throw RuntimeRefusals.suspending(runtime, "prompt", "a write");
      }
      Optional<Workload.Agent> agent = lifecycle.workload().agent();
      if (now != RuntimeState.RUNNING || agent.isEmpty()) {
        throw RuntimeRefusals.runsNoPrompts(runtime, now);
      }
      // A prompt without its proxy would only fail inside the CLI, as a connection error. (A pod's
      // sidecar proxy is the kubelet's to watch: its readiness fails, and the pod with it.)
      dev.berth.agent.proxy.ProxyProcess proxy = agent.get().proxy();
      if (proxy != null) {
        proxy
            .failure()
            .ifPresent(
                why -> {
                  throw new HostRefusal(503, AgentReason.WORKLOAD_UNAVAILABLE, why);
                });
      }
      return agent.get();
    }
  }

  /**
   * Between prompts no process of an agent session runs (each prompt's CLI runs in a PID namespace
   * that ends with it); what a run left is killed here, and a session whose processes do not end is
   * not written into.
   */
  private void requireNoProcess(LaunchPlan plan) {
    if (plan.processes().isEmpty()) {
      return;
    }
    LOG.warn("runtime {} still had processes between prompts; they are killed", runtime);
    plan.killAll();
    // A killed cgroup empties a moment later: wait for it rather than refuse what is dying.
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
    Set<Long> left = plan.processes();
    while (!left.isEmpty() && System.nanoTime() < deadline) {
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
      left = plan.processes();
    }
    if (!left.isEmpty()) {
      throw new HostRefusal(
          409,
          AgentReason.PROMPTS_RUNNING,
          "runtime "
              + runtime
              + " still has processes of its last prompt ("
              + left
              + ") that did not end when killed; retry the refresh shortly");
    }
  }
}
