package dev.berth.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code berth} command line. */
@Command(
    name = "berth",
    mixinStandardHelpOptions = true,
    versionProvider = BerthCommand.Version.class,
    description = "Runs and manages Berth.",
    subcommands = {ServerCommand.class, NodeCommand.class, SessionAgentCommand.class})
public final class BerthCommand {

  static final String DEFAULT_VERSION = "0.1.0-SNAPSHOT";

  public static void main(String[] args) {
    System.exit(new CommandLine(new BerthCommand()).execute(args));
  }

  /** The version from the jar's manifest, or the build's version when run from classes. */
  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      String version = BerthCommand.class.getPackage().getImplementationVersion();
      return new String[] {"berth " + (version != null ? version : DEFAULT_VERSION)};
    }
  }
}
