package dev.berth.agent.host;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * An agent session's shared directory, when its type has one (opt-in per agent type on the control
 * plane, {@code shared} in the launch): {@code state/shared/} on the host, bound read-write at
 * {@code /shared} in the session's sandbox and named to the CLI by {@code BERTH_SHARED_DIR}.
 *
 * <p>Why in {@code state/}: the runtime's archive is its whole state directory, so what a session
 * leaves in {@code /shared} (a tool's large result, a file one run hands the next) is snapshotted
 * and restored with its conversation, and it is the session's alone — no other session's sandbox
 * binds it. Why beside {@code home/} rather than in it: it has a path of its own that does not move
 * with the CLI's home, and a type that turns it off again leaves its files archived, unbound.
 */
record SharedDirectory(Path host) {

  /** Where the session's sandbox sees it. */
  static final Path SANDBOX_PATH = Path.of("/shared");

  /** The variable that tells the CLI (and its tools) where it is. */
  static final String VARIABLE = "BERTH_SHARED_DIR";

  /** Its name in the runtime's state directory. */
  static final String STATE_NAME = "shared";

  /** The shared directory of the runtime whose state is {@code state}, made if missing. */
  static SharedDirectory in(Path state) {
    Path dir = state.resolve(STATE_NAME);
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create the session's shared directory " + dir, e);
    }
    return new SharedDirectory(dir);
  }

  /** What every run of the CLI gets in its environment. */
  Map<String, String> environment() {
    return Map.of(VARIABLE, SANDBOX_PATH.toString());
  }
}
