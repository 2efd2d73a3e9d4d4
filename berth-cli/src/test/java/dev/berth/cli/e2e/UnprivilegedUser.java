package dev.berth.cli.e2e;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * An ordinary user to run {@code bin/berth server} as, set up the way an operator runs Berth
 * without root: an account of its own (fusermount3, which mounts its sessions' disks, looks its
 * name up), a copy of the distribution it can read, a private data directory it owns, and a cgroup
 * delegated to it (as systemd's {@code Delegate=yes} does), so that its node can give each session
 * its limits. The test itself runs as root.
 */
final class UnprivilegedUser implements AutoCloseable {
  private final long uid;
  private final boolean accountCreated;
  private final Path home;
  private final Path distribution;
  private final List<Path> cgroups;

  private UnprivilegedUser(
      long uid, boolean accountCreated, Path home, Path distribution, List<Path> cgroups) {
    this.uid = uid;
    this.accountCreated = accountCreated;
    this.home = home;
    this.distribution = distribution;
    this.cgroups = cgroups;
  }

  static UnprivilegedUser create() {
    long uid = 61_000 + ProcessHandle.current().pid() % 1000;
    try {
      Path home = Files.createTempDirectory("berth-it-user-");
      Files.setPosixFilePermissions(home, PosixFilePermissions.fromString("rwx--x--x"));
      Path distribution = copyDistribution(home.resolve("dist"));
      Path data = Files.createDirectories(home.resolve("data"));
      Files.setPosixFilePermissions(data, PosixFilePermissions.fromString("rwx------"));
      chown(data, uid);
      boolean created = createAccount(uid, home);
      return new UnprivilegedUser(uid, created, home, distribution, delegateCgroups(uid));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot set up the unprivileged user", e);
    }
  }

  long uid() {
    return uid;
  }

  /** The user's data directory (0700, its own). */
  Path dataDir() {
    return home.resolve("data");
  }

  /** Starts the server in the delegated cgroup as this user. */
  ServerProcess.Launch launch() {
    StringBuilder script = new StringBuilder();
    for (Path cgroup : cgroups) {
      script.append("echo $$ > '").append(cgroup.resolve("cgroup.procs")).append("' && ");
    }
    script.append("exec setpriv --reuid ").append(uid).append(" --regid ").append(uid);
    script.append(" --clear-groups env HOME='").append(home).append("' \"$@\"");
    return new ServerProcess.Launch(
        distribution, List.of("/bin/sh", "-c", script.toString(), "berth-it-user"), List.of());
  }

  /** Adds {@code berth-it-UID} unless the uid has an account (one a killed run left, say). */
  private static boolean createAccount(long uid, Path home) throws IOException {
    if (run("getent", "passwd", Long.toString(uid)) == 0) {
      return false;
    }
    int added =
        run(
            "useradd",
            "--no-create-home",
            "--home-dir",
            home.toString(),
            "--uid",
            Long.toString(uid),
            "--user-group",
            "--shell",
            "/usr/sbin/nologin",
            "berth-it-" + uid);
    if (added != 0) {
      throw new IOException("useradd of uid " + uid + " failed (exit " + added + ")");
    }
    return true;
  }

  private static int run(String... argv) throws IOException {
    try {
      return new ProcessBuilder(argv)
          .redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.DISCARD)
          .start()
          .waitFor();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException(argv[0] + " was interrupted", e);
    }
  }

  @Override
  public void close() {
    if (accountCreated) {
      try {
        run("userdel", "berth-it-" + uid);
      } catch (IOException e) {
        // A leftover account is reused by the next run.
      }
    }
    for (Path cgroup : cgroups) {
      // Children first: the node's berth/ directory and any session cgroup it left.
      try (var paths = Files.walk(cgroup)) {
        paths
            .filter(p -> Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS))
            .sorted(Comparator.reverseOrder())
            .forEach(p -> p.toFile().delete());
      } catch (IOException e) {
        continue;
      }
    }
    try (var paths = Files.walk(home)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    removeItsTemporaryFiles();
  }

  /**
   * What the user's processes left in /tmp: the JVM's perf data directory, pty4j's library folder
   * of its uid, SQLite's native library of a server that was killed and the sandboxes' /etc files
   * of a node that was. Only entries the test's own account owns are touched.
   */
  private void removeItsTemporaryFiles() {
    try (var entries = Files.list(Path.of("/tmp"))) {
      for (Path entry : entries.toList()) {
        String name = entry.getFileName().toString();
        boolean ours =
            name.equals("hsperfdata_berth-it-" + uid)
                || name.startsWith("berth-pty4j-" + uid + "-")
                || name.startsWith("berth-sandbox-")
                || name.startsWith("sqlite-");
        if (ours
            && ((Number) Files.getAttribute(entry, "unix:uid", LinkOption.NOFOLLOW_LINKS))
                    .longValue()
                == uid) {
          try (var paths = Files.walk(entry)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** bin/berth, bin/java-home and the jars, readable by anyone. */
  private static Path copyDistribution(Path target) throws IOException {
    Path root = ServerProcess.projectRoot();
    for (String file : List.of("bin/berth", "bin/java-home", "berth-cli/target/berth-cli.jar")) {
      copy(root.resolve(file), target.resolve(file));
    }
    Path lib = root.resolve("berth-cli/target/lib");
    try (var jars = Files.list(lib)) {
      for (Path jar : jars.toList()) {
        copy(jar, target.resolve("berth-cli/target/lib").resolve(jar.getFileName()));
      }
    }
    try (var paths = Files.walk(target)) {
      for (Path path : paths.toList()) {
        Files.setPosixFilePermissions(
            path,
            PosixFilePermissions.fromString(
                Files.isDirectory(path) || Files.isExecutable(path) ? "rwxr-xr-x" : "rw-r--r--"));
      }
    }
    return target;
  }

  private static void copy(Path source, Path target) throws IOException {
    Files.createDirectories(target.getParent());
    Files.copy(source, target, StandardCopyOption.REPLACE_EXISTING);
  }

  /**
   * A cgroup of the user's own in every hierarchy the node uses, under this process's: v2's one, or
   * v1's pids, memory and cpu.
   */
  private static List<Path> delegateCgroups(long uid) throws IOException {
    Path root = Path.of("/sys/fs/cgroup");
    List<String> self = Files.readAllLines(Path.of("/proc/self/cgroup"));
    List<Path> delegated = new ArrayList<>();
    String name = "berth-it-" + uid;
    if (Files.exists(root.resolve("cgroup.controllers"))) {
      delegated.add(delegate(root, ownPath(self, ""), name, uid));
    } else {
      for (String controller : List.of("pids", "memory", "cpu", "freezer")) {
        if (Files.exists(root.resolve(controller).resolve("cgroup.procs"))) {
          delegated.add(delegate(root.resolve(controller), ownPath(self, controller), name, uid));
        }
      }
    }
    return delegated;
  }

  private static Path delegate(Path mount, String own, String name, long uid) throws IOException {
    Path cgroup = mount.resolve(own.replaceFirst("^/+", "")).resolve(name);
    Files.createDirectories(cgroup);
    chown(cgroup, uid);
    try (var files = Files.list(cgroup)) {
      for (Path file : files.toList()) {
        if (Files.isRegularFile(file)) {
          chown(file, uid);
        }
      }
    }
    return cgroup;
  }

  private static String ownPath(List<String> self, String controller) {
    for (String line : self) {
      String[] parts = line.split(":", 3);
      boolean matches =
          controller.isEmpty()
              ? parts[0].equals("0")
              : List.of(parts[1].split(",")).contains(controller);
      if (parts.length == 3 && matches) {
        return parts[2];
      }
    }
    return "/";
  }

  private static void chown(Path path, long uid) throws IOException {
    Files.setAttribute(path, "unix:uid", (int) uid, LinkOption.NOFOLLOW_LINKS);
    Files.setAttribute(path, "unix:gid", (int) uid, LinkOption.NOFOLLOW_LINKS);
  }
}
