package dev.berth.cli;

import dev.berth.client.BerthClient;
import dev.berth.core.session.SessionId;
import java.util.OptionalLong;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code berth switch}, {@code snapshot}, {@code recover} and {@code keepalive}: the lifecycle
 * requests.
 */
final class LifecycleCommands {

  private LifecycleCommands() {}

  /** Options both share. */
  abstract static class Lifecycle extends ClientCommand {
    @Parameters(
        paramLabel = "SESSION",
        converter = SessionRef.Converter.class,
        description = SessionRef.DESCRIPTION)
    SessionRef session;

    /** The session {@link #session} names, found at the start of {@code run}. */
    @SuppressWarnings("NullAway.Init")
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
      id = session.resolve(client);
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
      id = session.resolve(client);
      print(format.format, client.snapshot(id, ifMatch()));
      return 0;
    }
  }

  /** {@code berth recover SESSION}. */
  @Command(
      name = "recover",
      mixinStandardHelpOptions = true,
      versionProvider = BerthCommand.Version.class,
      description =
          "Makes a new session from a deleted one's last archive, within the recovery window;"
              + " SESSION is looked up among the deleted sessions.")
  static final class Recover extends ClientCommand {
    @Parameters(
        paramLabel = "SESSION",
        converter = SessionRef.Converter.class,
        description = "The deleted session: its id, a unique id prefix, or its name.")
    SessionRef session;

    @Mixin FormatOption format;

    @Override
    int run(BerthClient client) {
      print(format.format, client.recover(session.resolveDeleted(client)));
      return 0;
    }
  }

  /** {@code berth keepalive SESSION [--for DURATION]}. */
  @Command(
      name = "keepalive",
      mixinStandardHelpOptions = true,
      versionProvider = BerthCommand.Version.class,
      description =
          "Holds a session from idle suspension for a while (at most 4h); it is not an access.")
  static final class KeepAlive extends ClientCommand {
    @Parameters(
        paramLabel = "SESSION",
        converter = SessionRef.Converter.class,
        description = SessionRef.DESCRIPTION)
    SessionRef session;

    @Option(
        names = "--for",
        paramLabel = "DURATION",
        converter = DurationConverter.class,
        description = "How long, such as 30m or 2h (default: the server's, up to its cap).")
    java.time.@Nullable Duration duration;

    @Mixin FormatOption format;

    @Override
    int run(BerthClient client) {
      print(
          format.format,
          client.keepAlive(session.resolve(client), java.util.Optional.ofNullable(duration)));
      return 0;
    }
  }
}
