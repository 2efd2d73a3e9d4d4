package dev.berth.agent.isolation;

import dev.berth.core.error.InvalidValueException;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * What confines a session, as reported in {@code SessionStatus.isolation}. It says what is in
 * force, not what was asked for: a host without writable cgroups reports {@code cgroup: "none"} and
 * then {@link ResourceLimits#maxProcesses()} and {@link ResourceLimits#maxMemoryBytes()} are not
 * enforced; {@link ResourceLimits#maxFileSizeBytes()} always is (RLIMIT_FSIZE).
 *
 * @param sandbox {@code "bwrap"} or {@code "none"}
 * @param namespaces the namespaces the workload has of its own, e.g. {@code [mount, pid, ipc]}
 * @param cgroup {@code "v2"}, {@code "v1"} or {@code "none"}
 * @param limits the limits applied
 */
public record Isolation(
    String sandbox, List<String> namespaces, String cgroup, ResourceLimits limits) {
  private static final Set<String> SANDBOXES = Set.of("bwrap", "none");
  private static final Set<String> CGROUPS = Set.of("v2", "v1", "none");

  public Isolation {
    Objects.requireNonNull(limits, "limits");
    namespaces = List.copyOf(namespaces);
    if (!SANDBOXES.contains(sandbox)) {
      throw new InvalidValueException("sandbox must be bwrap or none, was \"" + sandbox + "\"");
    }
    if (!CGROUPS.contains(cgroup)) {
      throw new InvalidValueException("cgroup must be v2, v1 or none, was \"" + cgroup + "\"");
    }
  }
}
