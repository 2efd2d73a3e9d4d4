package dev.berth.agent.isolation;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Where this host may create session cgroups: one {@code berth} directory per hierarchy, nested
 * under the agent's own cgroup so that the host's own limits (a container's memory cap) still apply
 * to every session.
 *
 * <p>cgroup v2 (one hierarchy, {@code cgroup.controllers} at the root) needs {@code pids} and
 * {@code memory} enabled for the agent's subtree; enabling them fails with EBUSY when the agent's
 * cgroup holds processes and is not the root, and the host then reports no cgroup. cgroup v1 needs
 * writable {@code pids} and {@code memory} hierarchies. Anything less is reported as {@code none}.
 *
 * <p>The {@code berth} directories exist only while a session cgroup lives in them: a leftover
 * child directory would keep whoever manages the agent's own cgroup from removing it. One lock
 * orders their creation and removal within this agent.
 */
final class CgroupLayout {
  private static final String DIRECTORY = "berth";
  private static final ReentrantLock PARENTS = new ReentrantLock();

  private final String version;
  private final List<Path> parents;
  private final boolean cpu;
  private final boolean freezer;

  /**
   * @param parents pids first, memory next on v1; then the cpu hierarchy's when {@code cpu}, and
   *     the freezer's last when {@code freezer}
   * @param cpu whether the cpu controller is there to cap a session's CPU time
   * @param freezer whether a session can be frozen whole (v2's {@code cgroup.freeze}, v1's freezer)
   */
  private CgroupLayout(String version, List<Path> parents, boolean cpu, boolean freezer) {
    this.version = version;
    this.parents = List.copyOf(parents);
    this.cpu = cpu;
    this.freezer = freezer;
  }

  /** Whether session cgroups can be frozen. */
  boolean freezer() {
    return freezer;
  }

  /** Whether session cgroups get a CPU limit. */
  boolean cpu() {
    return cpu;
  }

  /** {@code v2} or {@code v1}. */
  String version() {
    return version;
  }

  /** Creates {@code berth/<name>} in every hierarchy and returns the directories, pids first. */
  List<Path> createChild(String name) throws IOException {
    PARENTS.lock();
    try {
      List<Path> children = new ArrayList<>();
      for (Path parent : parents) {
        Files.createDirectories(parent);
        if (version.equals("v2")) {
          enableControllers(parent, cpu);
        }
        children.add(Files.createDirectories(parent.resolve(name)));
      }
      return children;
    } finally {
      PARENTS.unlock();
    }
  }

  /** Removes the {@code berth} directories that no session cgroup uses any more. */
  void removeUnusedParents() {
    PARENTS.lock();
    try {
      for (Path parent : parents) {
        try (var children = Files.list(parent)) {
          if (children.noneMatch(Files::isDirectory)) {
            Files.delete(parent);
          }
        } catch (IOException e) {
          continue;
        }
      }
    } finally {
      PARENTS.unlock();
    }
  }

  static Optional<CgroupLayout> detect(Path root, List<String> selfCgroup) {
    try {
      Optional<CgroupLayout> layout =
          Files.exists(root.resolve("cgroup.controllers"))
              ? detectV2(root, selfCgroup)
              : detectV1(root, selfCgroup);
      if (layout.isPresent()) {
        layout.get().probe();
      }
      return layout;
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }

  private void probe() throws IOException {
    PARENTS.lock();
    try {
      for (Path parent : parents) {
        Files.createDirectories(parent);
        if (!Files.exists(parent.resolve("cgroup.procs"))) {
          throw new IOException(parent + " is not a cgroup");
        }
        if (version.equals("v2")) {
          enableControllers(parent, cpu);
        }
      }
    } finally {
      PARENTS.unlock();
    }
    removeUnusedParents();
  }

  private static Optional<CgroupLayout> detectV2(Path root, List<String> selfCgroup)
      throws IOException {
    Optional<String> own = ownPath(selfCgroup, "");
    if (own.isEmpty()) {
      return Optional.empty();
    }
    Path base = within(root, own.get());
    String available = Files.readString(base.resolve("cgroup.controllers"));
    List<String> controllers = List.of(available.trim().split("\\s+"));
    if (!controllers.contains("pids") || !controllers.contains("memory")) {
      return Optional.empty();
    }
    boolean cpu = controllers.contains("cpu");
    enableControllers(base, cpu);
    // Every non-root v2 cgroup has cgroup.freeze from Linux 5.2 on; the root has none, so an agent
    // in the root cgroup assumes it (Cgroup.canFreeze checks the session's own cgroup).
    boolean freezer = Files.exists(base.resolve("cgroup.freeze")) || base.equals(root);
    return Optional.of(new CgroupLayout("v2", List.of(base.resolve(DIRECTORY)), cpu, freezer));
  }

  private static void enableControllers(Path cgroup, boolean cpu) throws IOException {
    List<String> enabled =
        List.of(Files.readString(cgroup.resolve("cgroup.subtree_control")).trim().split("\\s+"));
    List<String> wanted = cpu ? List.of("pids", "memory", "cpu") : List.of("pids", "memory");
    if (!enabled.containsAll(wanted)) {
      Files.writeString(
          cgroup.resolve("cgroup.subtree_control"),
          String.join(" ", wanted.stream().map(c -> "+" + c).toList()));
    }
  }

  private static Optional<CgroupLayout> detectV1(Path root, List<String> selfCgroup) {
    List<Path> parents = new ArrayList<>();
    for (String controller : List.of("pids", "memory")) {
      Path mount = root.resolve(controller);
      if (!Files.exists(mount.resolve("cgroup.procs"))) {
        return Optional.empty();
      }
      parents.add(v1Base(mount, selfCgroup, controller));
    }
    // The cpu hierarchy is optional: without it sessions run uncapped in CPU, and say so.
    Path cpuMount = root.resolve("cpu");
    boolean cpu =
        Files.exists(cpuMount.resolve("cgroup.procs"))
            && Files.exists(cpuMount.resolve("cpu.cfs_quota_us"));
    if (cpu) {
      parents.add(v1Base(cpuMount, selfCgroup, "cpu"));
    }
    Path freezerMount = root.resolve("freezer");
    boolean freezer = Files.exists(freezerMount.resolve("cgroup.procs"));
    if (freezer) {
      parents.add(v1Base(freezerMount, selfCgroup, "freezer"));
    }
    return Optional.of(new CgroupLayout("v1", parents, cpu, freezer));
  }

  private static Path v1Base(Path mount, List<String> selfCgroup, String controller) {
    Path base = ownPath(selfCgroup, controller).map(own -> within(mount, own)).orElse(mount);
    return base.resolve(DIRECTORY);
  }

  /**
   * The agent's cgroup path in the hierarchy of {@code controller} ({@code ""} for v2), from lines
   * of {@code /proc/self/cgroup} such as {@code 8:pids:/} or {@code 0::/system.slice/x}.
   */
  static Optional<String> ownPath(List<String> selfCgroup, String controller) {
    for (String line : selfCgroup) {
      String[] parts = line.split(":", 3);
      if (parts.length != 3) {
        continue;
      }
      boolean matches =
          controller.isEmpty()
              ? parts[0].equals("0") && parts[1].isEmpty()
              : List.of(parts[1].split(",")).contains(controller);
      if (matches) {
        return Optional.of(parts[2]);
      }
    }
    return Optional.empty();
  }

  /** {@code mount + path}, or {@code mount} when the path is not visible under this mount. */
  private static Path within(Path mount, String path) {
    Path candidate = mount.resolve(path.replaceFirst("^/+", "")).normalize();
    return candidate.startsWith(mount) && Files.isDirectory(candidate) ? candidate : mount;
  }
}
