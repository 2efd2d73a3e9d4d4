package dev.berth.agent.isolation;

import dev.berth.core.error.InvalidValueException;
import java.nio.file.Path;
import java.util.List;

/**
 * A directory or file of the host that an operator adds to every session's view ({@code
 * --sandbox-bind SRC[:DST][:ro]}): a shared read-only toolchain, a cache. Writable binds are shared
 * by every session and are the operator's decision.
 *
 * @param source the host path, absolute
 * @param target where sessions see it, absolute; the source's path when not given
 * @param readOnly whether sessions may only read it
 */
public record SandboxBind(Path source, Path target, boolean readOnly) {
  /** What a bind may not cover: the view's fixed parts and the session's own state. */
  private static final List<Path> RESERVED =
      List.of(
          Path.of("/proc"),
          Path.of("/dev"),
          SessionUser.HOME,
          Path.of("/tmp"),
          Path.of("/run/berth"));

  public SandboxBind {
    source = absolute(source, "source");
    target = absolute(target, "target");
    if (target.getNameCount() == 0 || RESERVED.stream().anyMatch(target::startsWith)) {
      throw new InvalidValueException(
          "sandbox bind target "
              + target
              + " covers a part of the session's view that Berth owns (/, /proc, /dev,"
              + " /home/berth, /tmp, /run/berth); choose another target, e.g. /opt/"
              + source.getFileName());
    }
  }

  /**
   * Parses {@code SRC}, {@code SRC:ro}, {@code SRC:DST} or {@code SRC:DST:ro} (read-write unless
   * {@code :ro}).
   */
  public static SandboxBind parse(String spec) {
    String[] parts = spec.split(":", -1);
    boolean readOnly = parts.length > 1 && parts[parts.length - 1].equals("ro");
    int paths = readOnly ? parts.length - 1 : parts.length;
    if (paths < 1 || paths > 2 || parts[0].isEmpty() || (paths == 2 && parts[1].isEmpty())) {
      throw new InvalidValueException(
          "sandbox bind must be SRC[:DST][:ro] with absolute paths, was \"" + spec + "\"");
    }
    Path source = Path.of(parts[0]);
    return new SandboxBind(source, paths == 2 ? Path.of(parts[1]) : source, readOnly);
  }

  /** The spec this bind was parsed from, normalized. */
  public String spec() {
    return source + ":" + target + (readOnly ? ":ro" : "");
  }

  private static Path absolute(Path path, String what) {
    if (path == null || !path.isAbsolute()) {
      throw new InvalidValueException(
          "sandbox bind " + what + " must be an absolute path, was \"" + path + "\"");
    }
    return path.normalize();
  }
}
