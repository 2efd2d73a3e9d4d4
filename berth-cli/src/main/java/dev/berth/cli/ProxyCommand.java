package dev.berth.cli;

import dev.berth.agent.proxy.ProxyMain;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code berth proxy}: one agent session's credential proxy ({@link ProxyMain}). The node starts
 * one per agent session with the launch on stdin; a pod runs one as its {@code proxy} sidecar with
 * {@code --session} and {@code --listen}, the provider from {@code BERTH_PROXY_*} variables.
 */
@Command(
    name = "proxy",
    mixinStandardHelpOptions = true,
    versionProvider = BerthCommand.Version.class,
    description =
        "Runs one agent session's credential proxy. Without options it reads its launch as one"
            + " JSON line on stdin and stops when stdin ends (as the node runs it); with --session"
            + " and --listen it reads the provider from BERTH_PROXY_BASE_URL, BERTH_PROXY_API,"
            + " BERTH_PROXY_TOKEN (and the optional BERTH_PROXY_AUTH_HEADER, BERTH_PROXY_CA_FILE,"
            + " BERTH_PROXY_APPROVAL_POLICY, BERTH_PROXY_GATEWAY_URL, BERTH_PROXY_GATEWAY_KEY,"
            + " BERTH_PROXY_APPROVAL_TIMEOUT_SECONDS) and runs until SIGTERM (a pod's sidecar).")
final class ProxyCommand implements Callable<Integer> {

  @Spec private CommandSpec spec;

  @Option(
      names = "--session",
      paramLabel = "ID",
      description = "The session the proxy serves; its /healthz names it.")
  private @Nullable String session;

  @Option(
      names = "--listen",
      paramLabel = "HOST:PORT",
      description = "Where to listen: HOST:PORT (a sidecar: 127.0.0.1:8091) or unix:PATH.")
  private @Nullable String listen;

  @Override
  public Integer call() {
    String id = session;
    String at = listen;
    if (id == null && at == null) {
      return ProxyMain.fromStdin(System.in, System.out, System.err);
    }
    if (id == null || at == null) {
      spec.commandLine()
          .getErr()
          .println(
              "berth proxy: --session and --listen go together; give both (the provider from"
                  + " BERTH_PROXY_* variables), or neither (the launch as JSON on stdin)");
      return ProxyMain.EXIT_INVALID;
    }
    return ProxyMain.fromEnv(id, at, System.getenv(), System.out, System.err);
  }
}
