package dev.berth.agent.isolation;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What a session launched on this host is not protected from, one sentence each, naming what is
 * missing: the isolation report's {@link Isolation#weaknesses()}.
 */
final class IsolationWeaknesses {
  private IsolationWeaknesses() {}

  /**
   * The weaknesses of a host that {@code confines} (or not) with {@code tools}, {@code seccomp},
   * {@code cgroups} and state disks of {@code disks}, its agent running as root or not.
   */
  static List<String> of(
      boolean confines,
      SandboxTools tools,
      Optional<SeccompFilter> seccomp,
      Optional<CgroupLayout> cgroups,
      StateDisks.Kind disks,
      boolean root) {
    List<String> weak = new ArrayList<>();
    if (!confines) {
      weak.add(
          tools.bwrap().isEmpty()
              ? "no sandbox (bubblewrap is not installed): sessions see the host's files,"
                  + " processes and network as the agent's user"
              : "no sandbox (user namespaces do not work here): sessions see the host's files,"
                  + " processes and network as the agent's user");
    } else if (seccomp.isEmpty()) {
      weak.add("no seccomp filter for " + System.getProperty("os.arch"));
    }
    weak.addAll(ofCgroups(cgroups));
    if (disks == StateDisks.Kind.NONE) {
      weak.add(
          root
              ? "no disk cap: loop mounts do not work here (e2fsprogs and a loop device are"
                  + " needed), so a session can fill the host's disk"
              : "no disk cap: an unprivileged node needs fuse2fs, fusermount3 (fuse3) and a"
                  + " writable /dev/fuse, so a session can fill the host's disk");
    }
    return weak;
  }

  private static List<String> ofCgroups(Optional<CgroupLayout> cgroups) {
    if (cgroups.isEmpty()) {
      return List.of(
          "no writable cgroup: process, memory and CPU limits are not enforced, and a snapshot"
              + " stops the session with signals, which a session can defeat");
    }
    List<String> weak = new ArrayList<>();
    if (!cgroups.get().cpu()) {
      weak.add("no cpu cgroup controller: CPU use is not limited");
    }
    if (!cgroups.get().freezer()) {
      weak.add(
          "no cgroup freezer: a snapshot stops the session with signals, which a session can"
              + " defeat");
    }
    return weak;
  }
}
