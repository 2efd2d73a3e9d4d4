package dev.berth.agent.isolation;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Builds what bwrap puts around one session ({@link LaunchPlan.Confinement}) on a host that
 * confines: the plan's private files (the sandbox's {@code /etc} files, the seccomp program), the
 * session's user (a host uid of its own, claimed, when the agent is root), its network namespace
 * and its filesystem view. What it took (the uid's claim) is given back when a later step fails.
 */
final class Confiner {
  private final SandboxTools tools;
  private final Optional<SeccompFilter> seccomp;
  private final SandboxSettings settings;
  private final HostIdentity identity;
  private final UidClaims claims;
  private final HelperLedger helpers;

  /** The session's user, and what gives back the host uid it was claimed for. */
  private record User(SessionUser user, Runnable release) {}

  Confiner(
      SandboxTools tools,
      Optional<SeccompFilter> seccomp,
      SandboxSettings settings,
      HostIdentity identity,
      UidClaims claims,
      HelperLedger helpers) {
    this.tools = tools;
    this.seccomp = seccomp;
    this.settings = settings;
    this.identity = identity;
    this.claims = claims;
    this.helpers = helpers;
  }

  /**
   * The confinement of plan {@code name} on the network {@code mode}, whose view adds {@code
   * extraBinds} to the operator's binds.
   */
  LaunchPlan.Confinement confine(
      String name,
      WritablePaths writable,
      NetworkMode mode,
      Optional<Path> proxySocket,
      List<SandboxBind> extraBinds) {
    Path files = sandboxFiles(name);
    FilesystemView.writeFiles(files, mode);
    Optional<Path> program = seccomp.map(filter -> filter.writeTo(files.resolve("seccomp.bpf")));
    User user = user(name, writable);
    SessionNetwork sessionNetwork;
    try {
      sessionNetwork = network(name, mode, proxySocket);
    } catch (RuntimeException e) {
      user.release().run();
      throw e;
    }
    return new LaunchPlan.Confinement(
        tools,
        new FilesystemView(
            writable,
            Stream.concat(settings.binds().stream(), extraBinds.stream()).toList(),
            settings.masks()),
        files,
        program,
        user.user(),
        sessionNetwork,
        identity.root(),
        user.release());
  }

  private static Path sandboxFiles(String name) {
    try {
      Path files = Files.createTempDirectory("berth-sandbox-");
      // The session's uid reads these (its /etc files) through the staged bind: nothing secret.
      Files.setPosixFilePermissions(files, PosixFilePermissions.fromString("rwxr-xr-x"));
      return files;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create the sandbox files of " + name, e);
    }
  }

  /**
   * A root agent claims a host uid of the session's own and gives it the writable directories; an
   * unprivileged one runs the session as itself.
   */
  private User user(String name, WritablePaths writable) {
    if (!identity.root()) {
      return new User(SessionUser.mappedTo(identity.uid(), identity.gid(), false), () -> {});
    }
    long uid = claims.claim(name);
    Runnable release = () -> claims.release(name, uid);
    for (Path dir : writable.all()) {
      chownTree(dir, uid);
    }
    return new User(SessionUser.mappedTo(uid, uid, true), release);
  }

  private SessionNetwork network(String name, NetworkMode mode, Optional<Path> proxySocket) {
    return switch (mode) {
      case EGRESS -> SessionNetwork.egress(name, tools, identity.root(), List.of(), helpers);
      case PROXY ->
          SessionNetwork.proxyOnly(
              name, tools, identity.root(), proxySocket.orElseThrow(), helpers);
      case NONE -> SessionNetwork.none();
    };
  }

  /**
   * Gives the session's uid its own files (a root agent wrote them, restoring an archive, or a
   * previous incarnation had another uid). Symlinks are changed themselves, never followed: the
   * tree was written by the workload.
   */
  private static void chownTree(Path root, long uid) {
    try {
      Files.walkFileTree(
          root,
          new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs)
                throws IOException {
              chown(dir, uid);
              return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs)
                throws IOException {
              chown(file, uid);
              return FileVisitResult.CONTINUE;
            }
          });
    } catch (IOException e) {
      throw new UncheckedIOException("cannot give " + root + " to the session's uid " + uid, e);
    }
  }

  /** Gives {@code path} itself (never a link's target) to {@code uid} and the group of that id. */
  static void chown(Path path, long uid) throws IOException {
    Files.setAttribute(path, "unix:uid", (int) uid, LinkOption.NOFOLLOW_LINKS);
    Files.setAttribute(path, "unix:gid", (int) uid, LinkOption.NOFOLLOW_LINKS);
  }
}
