package dev.berth.agent.host;

import dev.berth.agent.contract.DisconnectPolicy;
import dev.berth.agent.isolation.NetworkMode;
import dev.berth.core.error.InvalidValueException;
import dev.berth.core.session.RuntimeRef;
import dev.berth.core.session.SessionId;
import dev.berth.core.session.WorkloadType;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * What the control plane asks a host to create: the runtime's deterministic name, its incarnation,
 * its workload and the ownership labels it must carry (orphans are found by them, never by name).
 *
 * @param awaitRestore true for a resume: the runtime starts nothing and waits for the archive that
 *     its {@code restore} command brings, so that the shell's first prompt is the restored one
 * @param network {@code "none"} narrows the runtime to loopback only (its tenant's grant); absent
 *     ({@code null}), it gets the host's network mode
 * @param agent an agent session's CLI and provider; none for a shell
 * @param disconnect the local contract the runtime's control lease holds it to (its tenant's, or
 *     the control plane's default); absent ({@code null}), the host's own
 */
public record RuntimeRequest(
    String runtime,
    long incarnation,
    String workload,
    Map<String, String> labels,
    boolean awaitRestore,
    @Nullable String network,
    @Nullable AgentLaunch agent,
    @Nullable Disconnect disconnect) {

  /** The longest grace a request may give a runtime without its control plane. */
  public static final long MAX_GRACE_SECONDS = 7 * 24 * 3600L;

  /**
   * What the host does with the workload when the runtime's control lease expires: {@code
   * "continue"} for {@code graceSeconds}, then stop; or {@code "stop"} at once.
   */
  public record Disconnect(String policy, long graceSeconds) {
    public Disconnect {
      DisconnectPolicy.parse(policy);
      if (graceSeconds < 0 || graceSeconds > MAX_GRACE_SECONDS) {
        throw new InvalidValueException(
            "disconnect graceSeconds must be between 0 and "
                + MAX_GRACE_SECONDS
                + ", was "
                + graceSeconds);
      }
    }

    public DisconnectPolicy parsedPolicy() {
      return DisconnectPolicy.parse(policy);
    }

    public Duration grace() {
      return Duration.ofSeconds(graceSeconds);
    }
  }

  public RuntimeRequest {
    Objects.requireNonNull(runtime, "runtime");
    Objects.requireNonNull(workload, "workload");
    labels = Map.copyOf(Objects.requireNonNull(labels, "labels"));
    if (network != null) {
      NetworkMode.parse(network);
    }
  }

  /** A runtime held to the host's own disconnect policy. */
  public RuntimeRequest(
      String runtime,
      long incarnation,
      String workload,
      Map<String, String> labels,
      boolean awaitRestore,
      @Nullable String network,
      @Nullable AgentLaunch agent) {
    this(runtime, incarnation, workload, labels, awaitRestore, network, agent, null);
  }

  /** A shell's runtime, with the network the request narrows it to, if any. */
  public RuntimeRequest(
      String runtime,
      long incarnation,
      String workload,
      Map<String, String> labels,
      boolean awaitRestore,
      @Nullable String network) {
    this(runtime, incarnation, workload, labels, awaitRestore, network, null);
  }

  @Override
  public String toString() {
    // The agent's provider prints without its token (AgentLaunch.Provider.toString).
    return "RuntimeRequest[" + runtime + ", " + workload + ", " + agent + ", " + disconnect + "]";
  }

  /** A runtime with the host's network. */
  public RuntimeRequest(
      String runtime,
      long incarnation,
      String workload,
      Map<String, String> labels,
      boolean awaitRestore) {
    this(runtime, incarnation, workload, labels, awaitRestore, null);
  }

  /** The most network the runtime may have, when the request narrows it. */
  public Optional<NetworkMode> networkLimit() {
    return Optional.ofNullable(network).map(NetworkMode::parse);
  }

  /** A runtime whose workload starts at once, in a fresh workspace. */
  public RuntimeRequest(
      String runtime, long incarnation, String workload, Map<String, String> labels) {
    this(runtime, incarnation, workload, labels, false);
  }

  /**
   * Checks the request names the session it is sent for.
   *
   * @throws InvalidValueException when the name does not match the session and incarnation, or the
   *     workload is not one this host runs
   */
  public RuntimeRequest validateFor(SessionId session) {
    if (incarnation < 1) {
      throw new InvalidValueException(
          "runtime incarnation must be >= 1, was " + incarnation + "; count incarnations from 1");
    }
    String expected = RuntimeRef.nameFor(session, incarnation);
    if (!expected.equals(runtime)) {
      throw new InvalidValueException(
          "runtime name \""
              + runtime
              + "\" does not match session "
              + session.value()
              + " incarnation "
              + incarnation
              + "; expected \""
              + expected
              + "\"");
    }
    if (WorkloadType.SHELL.value().equals(workload)) {
      if (agent != null) {
        throw new InvalidValueException(
            "a shell runtime takes no agent; send one for an agent workload only");
      }
      return this;
    }
    if (AgentLaunch.adapter(workload).isEmpty()) {
      throw new InvalidValueException(
          "workload \""
              + workload
              + "\" is not hosted here; this host runs shell, claude-code, codex and minimax-code");
    }
    if (agent == null) {
      throw new InvalidValueException(
          "workload \""
              + workload
              + "\" needs its agent (the CLI's path and the provider); the control plane sends them"
              + " from its configuration");
    }
    agent.provider().profile();
    return this;
  }
}
