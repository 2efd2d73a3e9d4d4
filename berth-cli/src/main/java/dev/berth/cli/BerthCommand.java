package dev.berth.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code berth} command line. */
@Command(
    name = "berth",
    mixinStandardHelpOptions = true,
    versionProvider = BerthCommand.Version.class,
    description = "Runs and manages Berth.",
    subcommands = {
      ServerCommand.class,
      NodeCommand.class,
      ProxyCommand.class,
      SessionAgentCommand.class,
      LoginCommand.class,
      SessionsCommand.class,
      AttachCommand.class,
      ExecCommand.class,
      LogsCommand.class,
      PromptCommand.class,
      TranscriptCommand.class,
      PluginsCommand.class,
      ApprovalCommands.Listing.class,
      ApprovalCommands.Approve.class,
      ApprovalCommands.Reject.class,
      LifecycleCommands.Switch.class,
      LifecycleCommands.Snapshot.class,
      LifecycleCommands.Recover.class,
      LifecycleCommands.KeepAlive.class,
      InspectCommands.Idle.class,
      InspectCommands.Operations.class,
      InspectCommands.Executions.class,
      InspectCommands.Audit.class,
      AdminCommand.class
    })
public final class BerthCommand {

  static final String DEFAULT_VERSION = "0.1.0-SNAPSHOT";

  private final CliEnvironment environment;

  public BerthCommand() {
    this(CliEnvironment.system());
  }

  BerthCommand(CliEnvironment environment) {
    this.environment = environment;
  }

  CliEnvironment environment() {
    return environment;
  }

  /** The command line with the client commands' error reporting and exit codes. */
  static CommandLine commandLine(CliEnvironment environment) {
    return commandLine(environment, new String[0]);
  }

  /**
   * The command line for a run with {@code args}: {@code berth server} also finds its options in
   * {@code BERTH_*} variables and in the file {@code --config} names ({@link ServerDefaults}).
   */
  static CommandLine commandLine(CliEnvironment environment, String... args) {
    CommandLine cli =
        new CommandLine(new BerthCommand(environment))
            .setExecutionExceptionHandler(new ErrorReporter());
    java.util.Objects.requireNonNull(cli.getSubcommands().get("server"), "berth server")
        .setDefaultValueProvider(ServerDefaults.of(environment.variables(), args));
    return cli;
  }

  public static void main(String[] args) {
    System.exit(commandLine(CliEnvironment.system(), args).execute(args));
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
