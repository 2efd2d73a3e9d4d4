package dev.berth.cli;

import dev.berth.client.BerthClient;
import dev.berth.client.IssuedToken;
import dev.berth.client.Tenant;
import dev.berth.client.TokenGrant;
import dev.berth.client.TokenInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/** {@code berth admin}: tenants and their tokens, with the admin token. */
@Command(
    name = "admin",
    mixinStandardHelpOptions = true,
    versionProvider = BerthCommand.Version.class,
    description = "Manages tenants and their tokens (needs the admin token).",
    subcommands = {AdminCommand.Tokens.class, AdminCommand.Tenants.class, RecoveryCommand.class})
final class AdminCommand {

  private static final JsonMapper JSON = JsonMapper.builder().build();

  /** {@code berth admin tokens create|list|revoke}. */
  @Command(
      name = "tokens",
      mixinStandardHelpOptions = true,
      versionProvider = BerthCommand.Version.class,
      description = "Issues, lists and revokes tenant tokens.",
      subcommands = {Create.class, ListTokens.class, Revoke.class})
  static final class Tokens {}

  /** {@code berth admin tokens create --tenant NAME --type shell [--max-sessions N]}. */
  @Command(
      name = "create",
      mixinStandardHelpOptions = true,
      versionProvider = BerthCommand.Version.class,
      description =
          "Issues a token for a tenant, creating the tenant or replacing its grant; the token is"
              + " printed once and cannot be shown again.")
  static final class Create extends ClientCommand {
    @Option(names = "--tenant", required = true, paramLabel = "NAME", description = "The tenant.")
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
        description =
            "The most network the tenant's sessions get: none (loopback only) or egress; the"
                + " server's --network when not given.")
    @Nullable String network;

    @Option(names = "-q", description = "Print only the token.")
    boolean quiet;

    @Override
    int run(BerthClient client) {
      TokenGrant grant =
          new TokenGrant(tenant, types, maxSessions, java.util.Optional.ofNullable(network));
      IssuedToken issued = client.issueToken(grant);
      if (quiet) {
        out().println(issued.token());
      } else {
        out().println("token for tenant " + Escape.cell(issued.tenant()) + " (shown only now):");
        out().println(issued.token());
        out().println("id (to revoke it): " + issued.id());
      }
      out().flush();
      return 0;
    }
  }

  /** {@code berth admin tokens list}. */
  @Command(
      name = "list",
      aliases = "ls",
      mixinStandardHelpOptions = true,
      versionProvider = BerthCommand.Version.class,
      description = "Lists the tenant tokens by id (the tokens themselves are not kept).")
  static final class ListTokens extends ClientCommand {
    @Mixin FormatOption format;

    @Override
    int run(BerthClient client) {
      List<TokenInfo> tokens = client.tokens();
      ObjectNode document = JSON.createObjectNode();
      ArrayNode array = document.putArray("tokens");
      Table table = new Table(List.of("ID", "TENANT", "ISSUED"));
      for (TokenInfo t : tokens) {
        array
            .addObject()
            .put("id", t.id())
            .put("tenant", t.tenant())
            .put("createdAt", t.createdAt().toString());
        table.row(List.of(t.id(), t.tenant(), t.createdAt().toString()));
      }
      print(format.format, document, wide -> table.render());
      return 0;
    }
  }

  /** {@code berth admin tokens revoke ID}. */
  @Command(
      name = "revoke",
      mixinStandardHelpOptions = true,
      versionProvider = BerthCommand.Version.class,
      description = "Revokes a tenant token: its next request is refused (401).")
  static final class Revoke extends ClientCommand {
    @Parameters(
        paramLabel = "ID",
        description = "The token's id as listed, or a prefix of it that no other token has.")
    String id;

    @Override
    int run(BerthClient client) {
      String prefix = id.strip().toLowerCase(Locale.ROOT);
      List<TokenInfo> matches =
          client.tokens().stream().filter(t -> t.id().startsWith(prefix)).toList();
      if (prefix.isEmpty() || matches.isEmpty()) {
        throw new UsageException(
            "no token has the id \"" + id + "\"; berth admin tokens list shows them");
      }
      if (matches.size() > 1) {
        StringBuilder message =
            new StringBuilder("\"" + id + "\" is the start of " + matches.size() + " tokens' ids:");
        matches.forEach(t -> message.append("\n  ").append(t.id()).append("  ").append(t.tenant()));
        throw new UsageException(message.toString());
      }
      client.revokeToken(matches.get(0).id());
      out()
          .println(
              "token "
                  + matches.get(0).id()
                  + " of tenant "
                  + Escape.cell(matches.get(0).tenant())
                  + " revoked");
      out().flush();
      return 0;
    }
  }

  /** {@code berth admin tenants}. */
  @Command(
      name = "tenants",
      mixinStandardHelpOptions = true,
      versionProvider = BerthCommand.Version.class,
      description = "Lists the tenants, their grants and how many sessions each holds.",
      subcommands = {SetTenant.class})
  static final class Tenants extends ClientCommand {
    @Mixin FormatOption format;

    @Override
    int run(BerthClient client) {
      List<Tenant> tenants = client.tenants();
      ObjectNode document = JSON.createObjectNode();
      ArrayNode array = document.putArray("tenants");
      Table table =
          new Table(List.of("TENANT", "TYPES", "NETWORK", "SESSIONS", "MAX", "DISCONNECT"));
      for (Tenant t : tenants) {
        ObjectNode item = array.addObject();
        item.put("tenant", t.tenant())
            .put("maxSessions", t.maxSessions())
            .put("sessions", t.sessions());
        t.network().ifPresent(n -> item.put("network", n));
        t.disconnect()
            .ifPresent(
                d ->
                    item.putObject("disconnect")
                        .put("policy", d.policy())
                        .put("graceSeconds", d.graceSeconds()));
        ArrayNode types = item.putArray("workloadTypes");
        t.workloadTypes().forEach(types::add);
        table.row(
            List.of(
                t.tenant(),
                String.join(",", t.workloadTypes()),
                t.network().orElse("-"),
                Integer.toString(t.sessions()),
                Integer.toString(t.maxSessions()),
                t.disconnect().map(Tenant.Disconnect::label).orElse("default")));
      }
      print(format.format, document, wide -> table.render());
      return 0;
    }
  }
}
