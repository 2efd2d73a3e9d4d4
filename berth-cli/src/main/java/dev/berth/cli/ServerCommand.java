package dev.berth.cli;

import dev.berth.server.BerthServer;
import dev.berth.server.ServerConfig;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code berth server}: runs the Berth server until the process is stopped. */
@Command(
    name = "server",
    mixinStandardHelpOptions = true,
    versionProvider = BerthCommand.Version.class,
    description = "Runs the Berth server until it receives SIGTERM or SIGINT.")
final class ServerCommand implements Callable<Integer> {

  @Spec private CommandSpec spec;

  @Option(
      names = "--listen",
      paramLabel = "HOST:PORT",
      defaultValue = "127.0.0.1:8080",
      converter = ListenAddressConverter.class,
      description = "Address to listen on (default: ${DEFAULT-VALUE}).")
  private ListenAddress listen;

  @Option(
      names = "--data-dir",
      paramLabel = "DIR",
      defaultValue = "${sys:user.home}/.berth",
      description =
          "Directory for the server's data; created if missing (default: ${DEFAULT-VALUE}).")
  private Path dataDir;

  @Override
  public Integer call() throws IOException, InterruptedException {
    Files.createDirectories(dataDir);
    BerthServer server =
        new BerthServer(
            new ServerConfig(listen.host(), listen.port(), dataDir)
                .withAdminToken(Optional.ofNullable(System.getenv("BERTH_ADMIN_TOKEN")))
                .withFailpoints(Objects.requireNonNullElse(System.getenv("BERTH_FAILPOINTS"), "")));
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  server.close();
                  stopped.countDown();
                },
                "berth-shutdown"));
    server.start();
    PrintWriter out = spec.commandLine().getOut();
    String base = "http://" + new ListenAddress(listen.host(), server.port()).authority();
    out.println("Berth server listening on " + base);
    out.println("Open the web UI (this URL logs you in as the administrator):");
    out.println("  " + base + "/login?token=" + server.adminToken());
    out.println("The admin token is also in " + dataDir.resolve("admin.token"));
    out.flush();
    stopped.await();
    return 0;
  }

  /** Turns a bad {@code --listen} value into a usage error (exit code 2) that names it. */
  static final class ListenAddressConverter implements CommandLine.ITypeConverter<ListenAddress> {
    @Override
    public ListenAddress convert(String value) {
      try {
        return ListenAddress.parse(value);
      } catch (IllegalArgumentException e) {
        throw new CommandLine.TypeConversionException(e.getMessage());
      }
    }
  }
}
