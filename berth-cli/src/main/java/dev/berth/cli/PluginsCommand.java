package dev.berth.cli;

import dev.berth.client.BerthClient;
import dev.berth.core.session.SessionId;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code berth plugins refresh ID}: an agent session's marketplace plugins. */
@Command(
    name = "plugins",
    mixinStandardHelpOptions = true,
    versionProvider = BerthCommand.Version.class,
    description = "An agent session's plugins.",
    subcommands = {PluginsCommand.Refresh.class})
final class PluginsCommand {

  /** {@code berth plugins refresh ID}. */
  @Command(
      name = "refresh",
      mixinStandardHelpOptions = true,
      versionProvider = BerthCommand.Version.class,
      description = {
        "Gives an agent session its plugins anew, as the marketplace holds them now, keeping its"
            + " conversation; prints the plugins refreshed, one per line.",
        "Runs between prompts (refused while one runs or waits); restores a snapshot first."
            + " Nothing refreshes by itself."
      })
  static final class Refresh extends ClientCommand {
    @Parameters(
        paramLabel = "SESSION",
        converter = SessionRef.Converter.class,
        description = SessionRef.DESCRIPTION)
    SessionRef session;

    /** The session {@link #session} names, found at the start of {@code run}. */
    @SuppressWarnings("NullAway.Init")
    SessionId id;

    @Override
    int run(BerthClient client) {
      id = session.resolve(client);
      List<String> refreshed = client.refreshPlugins(id);
      if (refreshed.isEmpty()) {
        err().println("session " + id + " has no plugins: nothing to refresh");
      }
      refreshed.forEach(out()::println);
      return 0;
    }
  }
}
