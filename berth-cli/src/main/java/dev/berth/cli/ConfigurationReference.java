package dev.berth.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/**
 * docs/configuration.md, generated from {@code berth server}'s own options: every flag with its
 * variable, its file key, its default and its meaning, so that the reference cannot drift from the
 * code ({@code ConfigurationReferenceTest} compares the file with this). {@code make docs} writes
 * it.
 */
public final class ConfigurationReference {

  private ConfigurationReference() {}

  /** Writes the reference to the file given as the one argument. */
  public static void main(String[] args) throws IOException {
    if (args.length != 1) {
      throw new IllegalArgumentException("usage: ConfigurationReference docs/configuration.md");
    }
    Files.writeString(Path.of(args[0]), markdown(), StandardCharsets.UTF_8);
  }

  static String markdown() {
    StringBuilder md = new StringBuilder();
    md.append(
        """
        # Configuration

        <!-- Generated from `berth server`'s options by `make docs`; a test fails when this file \
        and the code disagree. Edit the options' descriptions, not this file. -->

        `berth server` takes each setting from, in this order:

        1. its flag on the command line (`--idle-after 30m`);
        2. its environment variable (`BERTH_IDLE_AFTER=30m`);
        3. the YAML file named by `--config FILE` or `BERTH_CONFIG` (`idle-after: 30m`);
        4. its default.

        A repeatable flag takes a YAML list in the file, or commas in its variable
        (`BERTH_SANDBOX_BIND=/opt/tools:ro,/data`). A key in the file that names no flag, a file
        that is not a mapping, or a value of the wrong kind stops the server at start with a
        message naming the option. A flag without a value (`--no-suspend`) takes `true` or `false` from
        its variable or key.

        ```yaml
        # berth.yaml
        listen: 0.0.0.0:8080
        idle-after: 15m
        suspend-after: 2h
        sandbox-bind:
          - /opt/tools:ro
        log-format: json
        ```

        ## Flags

        | Flag | Variable | File key | Default | Meaning |
        |---|---|---|---|---|
        """);
    for (OptionSpec option : serverOptions()) {
      md.append("| `")
          .append(option.longestName())
          .append(option.arity().max() > 0 ? " " + option.paramLabel().replace("|", "\\|") : "")
          .append("` | `")
          .append(ServerDefaults.variable(option))
          .append("` | `")
          .append(ServerDefaults.key(option))
          .append("` | ")
          .append(defaultOf(option))
          .append(" | ")
          .append(meaning(option))
          .append(" |\n");
    }
    md.append(
        """

        `--config FILE` (or `BERTH_CONFIG`) names the file itself. `--help` and `--version` print \
        and exit.

        ## Variables without a flag

        | Variable | Meaning |
        |---|---|
        | `BERTH_ADMIN_TOKEN` | The admin token. Without it the server makes one at first start \
        and keeps it in the data directory's `admin.token`; a shared store needs it. Never \
        printed when given. |
        | `BERTH_AGENT_TOKEN_KEY` | With `--runtime kubernetes`: the key the per-session agent \
        tokens are derived from, the same on every replica (docs/kubernetes.md). |
        | `BERTH_PROVIDER_<TYPE>_URL`, `_TOKEN`, `_TOKEN_FILE`, `_TOKEN_SECRET`, `_CA_FILE`, `_API`, \
        `_AUTH_HEADER`, `_MODEL`, `_MODELS`, `_EGRESS_CIDRS` \
        | An agent type's model provider, as `--providers` sets it (docs/agents.md); \
        `_TOKEN_SECRET` (NAME/KEY of a Secret) instead of a token with `--runtime kubernetes` \
        (docs/kubernetes.md), and `_EGRESS_CIDRS` (comma-separated) the provider's address \
        ranges a session pod without network may reach, instead of what its host resolves to. |
        | `PGPASSWORD` | The password of a PostgreSQL `--store`. |
        | `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_REGION` | The credentials of an \
        `s3://` `--archive` (the AWS SDK's default chain). |
        | `BERTH_NODE_JAVA_OPTS` | Extra JVM options of the local node the server starts. |
        """);
    return md.toString();
  }

  /** The options a reference row is written for, in the order `--help` lists them. */
  static List<OptionSpec> serverOptions() {
    return new CommandLine(new ServerCommand())
        .getCommandSpec().options().stream().filter(ServerDefaults::configurable).toList();
  }

  private static String defaultOf(OptionSpec option) {
    String value = option.defaultValue();
    if (value == null) {
      return option.arity().max() == 0 ? "`false`" : "—";
    }
    // picocli gives the default with ${sys:user.home} already resolved: the reader's home is ~.
    String home = System.getProperty("user.home");
    if (home != null && !home.isEmpty() && value.startsWith(home + "/")) {
      value = "~" + value.substring(home.length());
    }
    return "`" + value + "`";
  }

  private static String meaning(OptionSpec option) {
    String text =
        String.join(" ", option.description())
            .replaceAll("\\s*\\(default:[^()]*\\)", "")
            .replace("|", "\\|");
    return text.strip();
  }
}
