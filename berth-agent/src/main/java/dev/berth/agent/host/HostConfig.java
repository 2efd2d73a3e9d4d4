package dev.berth.agent.host;

import dev.berth.agent.contract.DisconnectPolicy;
import dev.berth.agent.isolation.ResourceLimits;
import dev.berth.agent.isolation.SandboxSettings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * How a session host runs.
 *
 * @param root the state directory: contracts, runtimes, their homes and output logs live under it
 * @param token the bearer token the control plane minted for this host
 * @param shell the shell each runtime runs on its PTY (an absolute path)
 * @param outputCapBytes the cap of each runtime's output log (head segments are dropped beyond it)
 * @param executionOutputCapBytes the cap of each execution's output log
 * @param disconnectPolicy what happens when the control lease expires
 * @param disconnectGrace how long a runtime keeps running after its lease expired, under CONTINUE
 * @param maxLifetime a hard bound on every runtime's life, enforced here whatever the control plane
 *     says
 * @param limits the resource limits of each runtime
 * @param sandbox what the operator asks of each runtime's sandbox (network, binds, masks)
 */
public record HostConfig(
    Path root,
    String token,
    String shell,
    long outputCapBytes,
    long executionOutputCapBytes,
    DisconnectPolicy disconnectPolicy,
    Duration disconnectGrace,
    Optional<Duration> maxLifetime,
    ResourceLimits limits,
    SandboxSettings sandbox) {

  /** 64 MiB: the shell output cap the issue asks for. */
  public static final long DEFAULT_OUTPUT_CAP = 64L << 20;

  public HostConfig {
    Objects.requireNonNull(root, "root");
    Objects.requireNonNull(token, "token");
    Objects.requireNonNull(shell, "shell");
    Objects.requireNonNull(disconnectPolicy, "disconnectPolicy");
    Objects.requireNonNull(disconnectGrace, "disconnectGrace");
    Objects.requireNonNull(maxLifetime, "maxLifetime");
    Objects.requireNonNull(limits, "limits");
    Objects.requireNonNull(sandbox, "sandbox");
    if (token.length() < 32) {
      throw new IllegalArgumentException(
          "host token must have at least 32 characters, had " + token.length());
    }
    if (!shell.startsWith("/")) {
      throw new IllegalArgumentException("shell must be an absolute path, was \"" + shell + "\"");
    }
    if (outputCapBytes < 1 << 20 || executionOutputCapBytes < 1 << 16) {
      throw new IllegalArgumentException(
          "output caps are too small: " + outputCapBytes + " / " + executionOutputCapBytes);
    }
  }

  /**
   * The room beyond a session's disk cap kept for what the host itself writes into the runtime's
   * state: the output log at its cap (an agent session's, when that is larger), four executions'
   * logs at theirs, an agent session's transcript at its cap and 16 MiB of slack. Where the host is
   * root, a session that fills its cap cannot take it (see {@code StateDisks}). One reserve for
   * every workload: the disk is made before the host knows which it will run, and an image's unused
   * blocks cost the host nothing.
   */
  public long diskReserveBytes() {
    // An agent session's log cap is never below a shell's.
    return AgentWorkload.logCap(this)
        + 4 * executionOutputCapBytes
        + dev.berth.agent.agentcli.TranscriptLog.DEFAULT_CAP
        + (16L << 20);
  }

  /** Defaults: bash, 64 MiB output, keep running for 15 minutes without the control plane. */
  public static HostConfig defaults(Path root, String token) {
    return new HostConfig(
        root,
        token,
        "/bin/bash",
        DEFAULT_OUTPUT_CAP,
        16L << 20,
        DisconnectPolicy.CONTINUE,
        Duration.ofMinutes(15),
        Optional.empty(),
        ResourceLimits.defaults(),
        SandboxSettings.defaults());
  }

  public HostConfig withShell(String command) {
    return new HostConfig(
        root,
        token,
        command,
        outputCapBytes,
        executionOutputCapBytes,
        disconnectPolicy,
        disconnectGrace,
        maxLifetime,
        limits,
        sandbox);
  }

  public HostConfig withOutputCap(long capBytes) {
    return new HostConfig(
        root,
        token,
        shell,
        capBytes,
        executionOutputCapBytes,
        disconnectPolicy,
        disconnectGrace,
        maxLifetime,
        limits,
        sandbox);
  }

  public HostConfig withDisconnect(
      DisconnectPolicy policy, Duration grace, Optional<Duration> lifetime) {
    return new HostConfig(
        root,
        token,
        shell,
        outputCapBytes,
        executionOutputCapBytes,
        policy,
        grace,
        lifetime,
        limits,
        sandbox);
  }

  /** This config with {@code settings} for every runtime's sandbox. */
  public HostConfig withSandbox(SandboxSettings settings) {
    return new HostConfig(
        root,
        token,
        shell,
        outputCapBytes,
        executionOutputCapBytes,
        disconnectPolicy,
        disconnectGrace,
        maxLifetime,
        limits,
        settings);
  }

  /** This config with {@code newLimits} for every runtime. */
  public HostConfig withLimits(ResourceLimits newLimits) {
    return new HostConfig(
        root,
        token,
        shell,
        outputCapBytes,
        executionOutputCapBytes,
        disconnectPolicy,
        disconnectGrace,
        maxLifetime,
        newLimits,
        sandbox);
  }

  /** Where a session's contract and runtimes live. */
  public Path sessionDirectory(String session) {
    return root.resolve("sessions").resolve(session);
  }
}
