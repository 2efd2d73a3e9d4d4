package dev.berth.agent.isolation;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.UnaryOperator;

/**
 * What a sandboxed workload sees of the filesystem: built from an allowlist, never from {@code /}.
 *
 * <ul>
 *   <li>read-only: {@code /usr} and the top-level {@code /bin}, {@code /sbin}, {@code /lib*} (as
 *       the symlinks into {@code /usr} they are on a merged-/usr system, else as binds), {@code
 *       /etc} with its secrets masked ({@link #BUILT_IN_MASKS}, ssh host keys, the operator's
 *       masks) and with {@code passwd}, {@code group}, {@code hostname}, {@code hosts} and {@code
 *       resolv.conf} of the sandbox's own;
 *   <li>a fresh {@code /dev}, the {@code /proc} of the session's own PID namespace;
 *   <li>empty tmpfs over {@code /root}, {@code /home}, {@code /run}, {@code /var};
 *   <li>read-write: the session's own directories at their targets ({@code /home/berth}, {@code
 *       /tmp}, the shell state) and the operator's binds.
 * </ul>
 *
 * Nothing of the agent's state directory, the control plane's data directory or another session is
 * ever in it; the view is the same whether the agent runs as root or not.
 */
final class FilesystemView {
  /** Files of {@code /etc} that no session reads, whatever the operator adds. */
  static final List<Path> BUILT_IN_MASKS =
      List.of(
          Path.of("/etc/shadow"),
          Path.of("/etc/shadow-"),
          Path.of("/etc/gshadow"),
          Path.of("/etc/gshadow-"),
          Path.of("/etc/security/opasswd"),
          Path.of("/etc/sudoers"),
          Path.of("/etc/sudoers.d"),
          Path.of("/etc/ssl/private"),
          Path.of("/etc/berth"));

  static final List<String> SYSTEM_DIRECTORIES =
      List.of("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32");
  static final List<String> EMPTY_DIRECTORIES = List.of("/root", "/home", "/run", "/var");
  static final List<String> GENERATED =
      List.of("passwd", "group", "hostname", "hosts", "resolv.conf");
  static final String EMPTY_FILE = "empty";

  private final WritablePaths writable;
  private final List<SandboxBind> binds;
  private final List<Path> masks;

  FilesystemView(WritablePaths writable, List<SandboxBind> binds, List<Path> extraMasks) {
    this.writable = writable;
    this.binds = binds;
    Set<Path> all = new LinkedHashSet<>(BUILT_IN_MASKS);
    all.addAll(sshHostKeys());
    all.addAll(extraMasks);
    this.masks = List.copyOf(all);
  }

  /**
   * Writes the sandbox's own {@code /etc} files into {@code directory} (the plan's private files):
   * a passwd and group that know {@code root}, {@code berth} (1000) and {@code nobody}, a hostname,
   * a hosts file and a resolv.conf that points at slirp's resolver under egress (and at nothing
   * under none).
   */
  static void writeFiles(Path directory, NetworkMode network) {
    try {
      Files.writeString(
          directory.resolve("passwd"),
          "root:x:0:0:root:/root:/usr/sbin/nologin\n"
              + "berth:x:1000:1000:Berth session:/home/berth:/bin/bash\n"
              + "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n");
      Files.writeString(directory.resolve("group"), "root:x:0:\nberth:x:1000:\nnogroup:x:65534:\n");
      Files.writeString(directory.resolve("hostname"), "berth\n");
      Files.writeString(
          directory.resolve("hosts"), "127.0.0.1 localhost berth\n::1 localhost ip6-localhost\n");
      Files.writeString(
          directory.resolve("resolv.conf"),
          network == NetworkMode.EGRESS ? "nameserver 10.0.2.3\n" : "");
      Files.writeString(directory.resolve(EMPTY_FILE), "");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the sandbox files in " + directory, e);
    }
  }

  /**
   * bwrap's mount flags for this view.
   *
   * @param files the directory {@link #writeFiles} wrote
   * @param source where bwrap finds a host directory of the session (its state, the files, an
   *     operator's bind): the path itself, or a staged path when the agent is root and bwrap runs
   *     as the session's uid, which cannot walk the agent's private directories
   */
  List<String> bwrapArguments(Path files, UnaryOperator<Path> source) {
    List<String> argv = new ArrayList<>();
    for (String name : SYSTEM_DIRECTORIES) {
      Path path = Path.of(name);
      if (Files.isSymbolicLink(path)) {
        argv.addAll(List.of("--symlink", readLink(path), name));
      } else if (Files.isDirectory(path)) {
        argv.addAll(List.of("--ro-bind", name, name));
      }
    }
    // /dev, /proc and the empty directories first: a /etc file that is a symlink into /run (a
    // systemd resolv.conf) then lands in the sandbox's own /run.
    argv.addAll(List.of("--dev", "/dev", "--proc", "/proc"));
    for (String name : EMPTY_DIRECTORIES) {
      argv.addAll(List.of("--tmpfs", name));
    }
    argv.addAll(List.of("--ro-bind", "/etc", "/etc"));
    for (Path mask : masks) {
      if (Files.isDirectory(mask, LinkOption.NOFOLLOW_LINKS)) {
        argv.addAll(List.of("--tmpfs", mask.toString()));
      } else if (Files.exists(mask, LinkOption.NOFOLLOW_LINKS)) {
        argv.addAll(
            List.of(
                "--ro-bind", source.apply(files.resolve(EMPTY_FILE)).toString(), mask.toString()));
      }
    }
    for (String name : GENERATED) {
      argv.addAll(
          List.of("--ro-bind", source.apply(files.resolve(name)).toString(), "/etc/" + name));
    }
    writable
        .tmp()
        .ifPresentOrElse(
            tmp -> argv.addAll(List.of("--bind", source.apply(tmp).toString(), "/tmp")),
            () -> argv.addAll(List.of("--tmpfs", "/tmp")));
    for (Path dir : writable.directories()) {
      argv.addAll(
          List.of("--bind", source.apply(dir).toString(), writable.targetOf(dir).toString()));
    }
    for (SandboxBind bind : binds) {
      argv.addAll(
          List.of(
              bind.readOnly() ? "--ro-bind" : "--bind",
              source.apply(bind.source()).toString(),
              bind.target().toString()));
    }
    // Last, once every mount point in them exists: bwrap's own root (a tmpfs) and the empty
    // directories become read-only, so that a session writes its home and /tmp and nothing else
    // (the mounts on them stay writable).
    argv.addAll(List.of("--remount-ro", "/"));
    for (String name : EMPTY_DIRECTORIES) {
      argv.addAll(List.of("--remount-ro", name));
    }
    return argv;
  }

  /** The host directories a root agent stages for bwrap: the session's own and the operator's. */
  List<Path> stagedSources(Path files) {
    List<Path> sources = new ArrayList<>();
    sources.add(files);
    writable.tmp().ifPresent(sources::add);
    sources.addAll(writable.directories());
    binds.forEach(bind -> sources.add(bind.source()));
    return sources;
  }

  /** The view as the isolation report lists it: one line a mount, in bwrap's order. */
  List<String> report() {
    List<String> lines = new ArrayList<>();
    for (String name : SYSTEM_DIRECTORIES) {
      Path path = Path.of(name);
      if (Files.isSymbolicLink(path)) {
        lines.add("symlink " + name + " -> " + readLink(path));
      } else if (Files.isDirectory(path)) {
        lines.add("ro " + name);
      }
    }
    lines.add("ro /etc (own passwd, group, hostname, hosts, resolv.conf)");
    for (Path mask : masks) {
      if (Files.exists(mask, LinkOption.NOFOLLOW_LINKS)) {
        lines.add("masked " + mask);
      }
    }
    lines.add("dev /dev");
    lines.add("proc /proc (own PID namespace)");
    EMPTY_DIRECTORIES.forEach(name -> lines.add("empty read-only tmpfs " + name));
    lines.add(writable.tmp().isPresent() ? "rw /tmp (the session's own)" : "tmpfs /tmp");
    for (Path dir : writable.directories()) {
      lines.add("rw " + writable.targetOf(dir) + " (the session's own)");
    }
    for (SandboxBind bind : binds) {
      lines.add(
          (bind.readOnly() ? "ro " : "rw ")
              + bind.target()
              + " (operator bind of "
              + bind.source()
              + ")");
    }
    return lines;
  }

  private static List<Path> sshHostKeys() {
    Path ssh = Path.of("/etc/ssh");
    if (!Files.isDirectory(ssh)) {
      return List.of();
    }
    List<Path> keys = new ArrayList<>();
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(ssh, "ssh_host_*")) {
      entries.forEach(keys::add);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list " + ssh, e);
    }
    return keys;
  }

  private static String readLink(Path path) {
    try {
      return Files.readSymbolicLink(path).toString();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the symlink " + path, e);
    }
  }
}
