package dev.berth.cli;

import dev.berth.client.BerthClient;
import dev.berth.core.session.SessionId;
import java.util.OptionalLong;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code berth switch ID} and {@code berth snapshot ID}: the lifecycle requests. */
final class LifecycleCommands {

  private LifecycleCommands() {}

  /** Options both share. */
  abstract static class Lifecycle extends ClientCommand {
    @Parameters(
        paramLabel = "ID",
        converter = SessionIdConverter.class,
        description = "The session's id.")
    SessionId id;

    @Option(
        names = "--if-match",
        paramLabel = "VERSION",
        description = "Only if the session's intent version is still VERSION (else 412).")
    @Nullable Long ifMatch;

    @Mixin FormatOption format;

    OptionalLong ifMatch() {
      return ifMatch == null ? OptionalLong.empty() : OptionalLong.of(ifMatch);
    }
  }

  /** {@code berth switch ID}. */
  @Command(
      name = "switch",
      mixinStandardHelpOptions = true,
      versionProvider = BerthCommand.Version.class,
      description = "Makes a session active: touches an idle one, restores a snapshot.")
  static final class Switch extends Lifecycle {
    @Override
    int run(BerthClient client) {
      print(format.format, client.switchSession(id, ifMatch()));
      return 0;
    }
  }

  /** {@code berth snapshot ID}. */
  @Command(
      name = "snapshot",
      mixinStandardHelpOptions = true,
      versionProvider = BerthCommand.Version.class,
      description =
          "Archives a session and reclaims its runtime; any later access (switch, read, attach)"
              + " restores it.")
  static final class Snapshot extends Lifecycle {
    @Override
    int run(BerthClient client) {
      print(format.format, client.snapshot(id, ifMatch()));
      return 0;
    }
  }
}
