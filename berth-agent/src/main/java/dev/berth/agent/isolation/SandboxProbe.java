package dev.berth.agent.isolation;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The trials {@link Sandbox#detect} makes: a whole launch of {@code /bin/true}, as a session would
 * run, and an {@code egress} network brought up and torn down. Each answers whether the mechanism
 * works here, and logs why not.
 */
final class SandboxProbe {
  // What the probes find is the sandbox's detection: logged under its name.
  private static final Logger LOG = LoggerFactory.getLogger(Sandbox.class);

  private SandboxProbe() {}

  /** Runs {@code /bin/true} through a whole launch planned by {@code candidate}. */
  static boolean launchWorks(Sandbox candidate) {
    String probe = "berth-probe-" + ProcessHandle.current().pid();
    Path scratch;
    try {
      scratch = Files.createTempDirectory("berth-probe-");
    } catch (IOException e) {
      return false;
    }
    try (LaunchPlan plan =
        candidate.plan(
            probe,
            List.of("/bin/true"),
            WritablePaths.of(scratch.resolve("home"))
                .withTarget(scratch.resolve("home"), SessionUser.HOME),
            ResourceLimits.defaults())) {
      return runs(plan);
    } catch (IOException | RuntimeException e) {
      LOG.warn("the sandbox probe failed: sessions run unsandboxed", e);
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    } finally {
      ScratchDirectories.delete(scratch);
    }
  }

  private static boolean runs(LaunchPlan plan) throws IOException, InterruptedException {
    Process process =
        new ProcessBuilder(plan.argv())
            .directory(plan.spawnDirectory(Path.of("/")).toFile())
            .redirectErrorStream(true)
            .start();
    if (!process.waitFor(10, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      LOG.warn("the sandbox probe did not finish within 10 s: sessions run unsandboxed");
      return false;
    }
    String output =
        new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
    if (process.exitValue() != 0) {
      LOG.warn(
          "the sandbox probe failed ({}): sessions run unsandboxed: {}",
          process.exitValue(),
          output);
      return false;
    }
    return true;
  }

  /**
   * The network sessions get on a host that confines: {@code egress} when it works here, else
   * {@code none}.
   *
   * @throws IllegalStateException when {@code egress} was {@code asked} for and does not work
   */
  static NetworkMode chooseNetwork(
      Optional<NetworkMode> asked,
      SandboxTools tools,
      HostIdentity identity,
      HelperLedger helpers) {
    if (asked.equals(Optional.of(NetworkMode.NONE))) {
      return NetworkMode.NONE;
    }
    Optional<String> failure = egressFailure(tools, identity, helpers);
    if (failure.isEmpty()) {
      return NetworkMode.EGRESS;
    }
    if (asked.isPresent()) {
      throw new IllegalStateException(
          "--network egress was asked for, but this host cannot give a session outbound"
              + " network: "
              + failure.get()
              + "; install slirp4netns, iproute2 and nftables, or start with --network none");
    }
    LOG.info("sessions get no outbound network (network none): {}", failure.get());
    return NetworkMode.NONE;
  }

  private static Optional<String> egressFailure(
      SandboxTools tools, HostIdentity identity, HelperLedger helpers) {
    if (!tools.canEgress()) {
      return Optional.of("slirp4netns, ip, nft, unshare or nsenter is not installed");
    }
    try {
      SessionNetwork.egress(
              "berth-probe-" + ProcessHandle.current().pid(),
              tools,
              identity.root(),
              List.of(),
              helpers)
          .close();
      return Optional.empty();
    } catch (RuntimeException e) {
      return Optional.of(String.valueOf(e.getMessage()));
    }
  }
}
