package dev.berth.server;

import dev.berth.server.AgentCatalog.Placement;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

/**
 * Where each agent type's CLI is: given with {@code --agent-cli TYPE=PATH}, or found on {@code
 * PATH} by its usual name on the local runtime; on pods ({@link AgentCatalog#loadForPods}), an
 * absolute path in the agent image, the image's own CLI by default.
 */
final class AgentClis {

  /** The CLIs in the agent image deploy/images/agent.Dockerfile builds, by command. */
  static final String IMAGE_CLIS = "/opt/berth/agent-clis/node_modules/.bin/";

  private AgentClis() {}

  /**
   * {@code name}'s CLI: given in {@code clis}, or found on {@code PATH} here, or the agent image's
   * own; empty when none is found here.
   *
   * @throws IllegalArgumentException when the CLI given is not executable here, or not an absolute
   *     path in the image
   */
  static Optional<Path> find(
      String name, Map<String, Path> clis, Map<String, String> env, Placement placement) {
    if (placement == Placement.PODS) {
      Path inImage = clis.getOrDefault(name, Path.of(IMAGE_CLIS + defaultCli(name)));
      if (!inImage.isAbsolute()) {
        throw new IllegalArgumentException(
            "--agent-cli "
                + name
                + "="
                + inImage
                + ": with --runtime kubernetes the CLI is an"
                + " absolute path in the agent image");
      }
      return Optional.of(inImage);
    }
    Optional<Path> cli =
        Optional.ofNullable(clis.get(name))
            .map(Path::toAbsolutePath)
            .or(() -> onPath(defaultCli(name), env.getOrDefault("PATH", "")));
    cli.ifPresent(path -> requireExecutable(name, path));
    return cli;
  }

  /** The command a type's CLI usually goes by; MiniMax Code runs Claude Code's by default. */
  static String defaultCli(String type) {
    return switch (type) {
      case "codex" -> "codex";
      default -> "claude";
    };
  }

  private static Optional<Path> onPath(String command, String path) {
    for (String dir : path.split(":")) {
      if (dir.isEmpty()) {
        continue;
      }
      Path candidate = Path.of(dir, command);
      if (Files.isExecutable(candidate)) {
        return Optional.of(candidate.toAbsolutePath());
      }
    }
    return Optional.empty();
  }

  private static void requireExecutable(String type, Path cli) {
    if (!Files.isExecutable(cli)) {
      throw new IllegalArgumentException(
          "the CLI of " + type + " (" + cli + ") is not an executable file");
    }
  }
}
