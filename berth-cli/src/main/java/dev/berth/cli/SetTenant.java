package dev.berth.cli;

import dev.berth.client.BerthClient;
import dev.berth.client.Tenant;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code berth admin tenants set NAME --type shell [--max-sessions N] [--disconnect continue|stop
 * [--disconnect-grace D]] ...}: sets a tenant's whole grant ({@code PUT /admin/tenants/{tenant}}),
 * which replaces the one it had; what is not given gets its default.
 */
@Command(
    name = "set",
    mixinStandardHelpOptions = true,
    versionProvider = BerthCommand.Version.class,
    description =
        "Sets a tenant's whole grant, creating the tenant or replacing its grant (what is not"
            + " given gets its default); issues no token.")
final class SetTenant extends ClientCommand {

  @Parameters(index = "0", paramLabel = "TENANT", description = "The tenant.")
  String tenant;

  @Option(
      names = "--type",
      required = true,
      paramLabel = "TYPE",
      split = ",",
      description = "A workload type it may create: shell, claude-code, codex (repeatable).")
  List<String> types = new ArrayList<>();

  @Option(
      names = "--max-sessions",
      paramLabel = "N",
      defaultValue = "10",
      description = "How many sessions it may hold at once (default: ${DEFAULT-VALUE}).")
  int maxSessions;

  @Option(
      names = "--network",
      paramLabel = "none|egress",
      description = "The most network its sessions get (default: egress).")
  @Nullable String network;

  @Option(
      names = "--service-account",
      paramLabel = "NAMESPACE/NAME",
      split = ",",
      description = "A Kubernetes service account whose tokens act for it (repeatable).")
  List<String> serviceAccounts = new ArrayList<>();

  @Option(
      names = "--approval",
      paramLabel = "off|external|all",
      description = "The least approval policy of its agent sessions (default: off).")
  @Nullable String approval;

  @Option(
      names = "--disconnect",
      paramLabel = "continue|stop",
      description =
          "What its runtimes do when their control lease expires (the control plane is gone):"
              + " continue for --disconnect-grace, then stop; or stop at once (default: the"
              + " server's --disconnect-policy).")
  @Nullable String disconnect;

  @Option(
      names = "--disconnect-grace",
      paramLabel = "DURATION",
      converter = DurationConverter.class,
      description = "How long continue keeps the workload after the expiry, at most 7d.")
  @Nullable Duration grace;

  @Override
  int run(BerthClient client) {
    Map<String, Object> grant = new LinkedHashMap<>();
    grant.put("workloadTypes", types);
    grant.put("maxSessions", maxSessions);
    if (network != null) {
      grant.put("network", network);
    }
    if (!serviceAccounts.isEmpty()) {
      grant.put("serviceAccounts", serviceAccounts);
    }
    if (approval != null) {
      grant.put("approval", approval);
    }
    disconnect().ifPresent(d -> grant.put("disconnect", d));
    Tenant stored = client.putTenant(tenant, grant);
    out()
        .println(
            "tenant "
                + Escape.cell(stored.tenant())
                + ": "
                + String.join(",", stored.workloadTypes())
                + ", at most "
                + stored.maxSessions()
                + " sessions, disconnect "
                + stored.disconnect().map(Tenant.Disconnect::label).orElse("default"));
    out().flush();
    return 0;
  }

  private java.util.Optional<Map<String, Object>> disconnect() {
    if (disconnect == null) {
      if (grace != null) {
        throw new CommandLine.ParameterException(
            spec.commandLine(), "--disconnect-grace needs --disconnect continue");
      }
      return java.util.Optional.empty();
    }
    Map<String, Object> policy = new LinkedHashMap<>();
    policy.put("policy", disconnect);
    if (grace != null) {
      policy.put("graceSeconds", grace.toSeconds());
    } else if (disconnect.equals("continue")) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "--disconnect continue needs --disconnect-grace DURATION");
    }
    return java.util.Optional.of(policy);
  }
}
