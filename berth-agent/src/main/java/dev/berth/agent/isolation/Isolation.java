package dev.berth.agent.isolation;

import dev.berth.core.error.InvalidValueException;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * What confines a session, as reported in {@code SessionStatus.isolation}. It says what is in
 * force, not what was asked for: a host without writable cgroups reports {@code cgroup: "none"} and
 * then {@link ResourceLimits#maxProcesses()}, {@link ResourceLimits#maxMemoryBytes()} and {@link
 * ResourceLimits#cpuMillis()} are not enforced; {@link ResourceLimits#maxFileSizeBytes()} always is
 * (RLIMIT_FSIZE). {@link #weaknesses()} names every part of the trust boundary that this host does
 * not enforce; it is empty when the session is fully isolated.
 *
 * @param sandbox {@code "bwrap"} or {@code "none"}
 * @param namespaces the namespaces the workload has of its own, e.g. {@code [user, mount, pid, ipc,
 *     uts, cgroup, net]}
 * @param cgroup {@code "v2"}, {@code "v1"} or {@code "none"}
 * @param limits the limits applied
 * @param cpuLimited whether {@code limits.cpuMillis} is enforced (the cgroup has a cpu controller)
 * @param disk how {@code limits.maxDiskBytes} is enforced: {@code loop} (a loop-mounted ext4 image
 *     per runtime), {@code fuse} (the same image through fuse2fs) or {@code none} (measured only)
 * @param filesystem the view, one line a mount (empty without a sandbox: the host's filesystem)
 * @param user who the workload runs as
 * @param network the network mode and what it refuses
 * @param seccomp the seccomp filter in force
 * @param weaknesses what is not enforced here, one sentence each
 */
public record Isolation(
    String sandbox,
    List<String> namespaces,
    String cgroup,
    ResourceLimits limits,
    boolean cpuLimited,
    String disk,
    List<String> filesystem,
    SessionUser user,
    Network network,
    Seccomp seccomp,
    List<String> weaknesses) {
  private static final Set<String> SANDBOXES = Set.of("bwrap", "none");
  private static final Set<String> CGROUPS = Set.of("v2", "v1", "none");
  private static final Set<String> DISKS = Set.of("loop", "fuse", "none");

  /**
   * @param mode {@code none} (loopback only), {@code egress}, or {@code host} (no namespace: the
   *     host's network, without a sandbox)
   * @param blocked destinations refused under {@code egress}, CIDR
   */
  public record Network(String mode, List<String> blocked) {
    public Network {
      blocked = List.copyOf(blocked);
    }
  }

  /**
   * @param mode {@code filter} or {@code none}
   * @param denied the system calls refused
   */
  public record Seccomp(String mode, List<String> denied) {
    public Seccomp {
      denied = List.copyOf(denied);
    }
  }

  public Isolation {
    Objects.requireNonNull(limits, "limits");
    Objects.requireNonNull(user, "user");
    Objects.requireNonNull(network, "network");
    Objects.requireNonNull(seccomp, "seccomp");
    namespaces = List.copyOf(namespaces);
    filesystem = List.copyOf(filesystem);
    weaknesses = List.copyOf(weaknesses);
    if (!SANDBOXES.contains(sandbox)) {
      throw new InvalidValueException("sandbox must be bwrap or none, was \"" + sandbox + "\"");
    }
    if (!CGROUPS.contains(cgroup)) {
      throw new InvalidValueException("cgroup must be v2, v1 or none, was \"" + cgroup + "\"");
    }
    if (!DISKS.contains(disk)) {
      throw new InvalidValueException("disk must be loop, fuse or none, was \"" + disk + "\"");
    }
  }

  /** Whether every part of the trust boundary is in force. */
  public boolean strong() {
    return weaknesses.isEmpty();
  }

  /** This host's report as one launched plan has it: its own view, host uid and network. */
  Isolation launched(List<String> planFilesystem, SessionUser planUser, Network planNetwork) {
    return new Isolation(
        sandbox,
        namespaces,
        cgroup,
        limits,
        cpuLimited,
        disk,
        planFilesystem,
        planUser,
        planNetwork,
        seccomp,
        weaknesses);
  }
}
