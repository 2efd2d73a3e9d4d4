package dev.berth.agent.agentcli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.random.RandomGenerator;

/**
 * Codex ({@code codex exec --json}, one run per prompt, standard input closed), with a model
 * provider that points at the credential proxy. The conversation id is Codex's own thread id, which
 * the first successful run announces; the next prompts run {@code codex exec resume <id>}. {@code
 * CODEX_HOME} is in the CLI's home in the session's state, so the threads travel in the archive. A
 * turn whose agent started sub-agents waits for them, and its agent reports their results ({@link
 * SubAgentHooks}).
 */
public record CodexAdapter() implements AgentAdapter {

  /** The variable the provider profile names for its key: it holds the placeholder. */
  static final String KEY_VARIABLE = "BERTH_PROVIDER_KEY";

  /** Where, in the CLI's home, Codex keeps its own (its threads, its configuration). */
  static final String CODEX_HOME = ".codex";

  /** The notice Codex prints (as an error item) for the hook-trust flag Berth gives it. */
  static final String HOOK_TRUST_NOTICE = "`--dangerously-bypass-hook-trust` is enabled.";

  @Override
  public String type() {
    return "codex";
  }

  @Override
  public boolean takesPlugins() {
    return false;
  }

  @Override
  public List<String> argv(
      Path cli, Turn turn, Conversation conversation, ProviderEndpoint provider) {
    List<String> argv = new ArrayList<>(List.of(cli.toString(), "exec", "--json"));
    // The session's sandbox is the boundary, for Codex's tools as for Claude Code's and a shell's:
    // Codex's own sandbox would nest a bwrap inside it (it fails there: "execvp
    // codex-linux-sandbox") and would add nothing the session's sandbox does not already hold.
    argv.addAll(
        List.of(
            "--skip-git-repo-check",
            "--sandbox",
            "danger-full-access",
            // Codex runs only hooks a user trusted interactively; Berth's own (SubAgentHooks) are
            // written before every run, and any hook runs in the session's sandbox as the
            // session's user, with no more than the model's shell tool has.
            "--dangerously-bypass-hook-trust",
            // The flag trusts every hook Codex loads, so Codex must load Berth's alone. It loads
            // hooks from $CODEX_HOME/hooks.json (Berth's, replaced before every run), from the
            // [hooks] tables of $CODEX_HOME/config.toml, from enabled plugins, and from the
            // .codex/ layers (hooks.json, config.toml) of a project the user config trusts
            // ([projects."<dir>"] trust_level). The workload writes the home: a command it was
            // allowed once (an install script of a hostile repository) could plant hooks or a
            // project's trust there, and they would run on every later turn, past the approval
            // gate. Without the user config (every setting Berth needs is a -c below) no project is
            // trusted, so no project layer loads, and no hook, plugin or MCP server of the home's
            // config.toml either; tried with Codex 0.169 (CodexSubAgentsTest).
            "--ignore-user-config",
            "-c",
            "model_provider=berth",
            "-c",
            "model_providers.berth={name=\"berth\",base_url=\""
                + provider.baseUrl()
                + "/v1\","
                + "env_key=\""
                + KEY_VARIABLE
                + "\",wire_api=\"responses\"}"));
    if (provider.gated()) {
      // Codex declares the Responses API's own web_search tool by default; the provider runs it,
      // so a gated session's proxy refuses any request that declares it (GatedRequests).
      argv.addAll(List.of("-c", "web_search=\"disabled\""));
    }
    turn.concreteModel().ifPresent(model -> argv.addAll(List.of("--model", model)));
    if (conversation.hasRun() && conversation.id().isPresent()) {
      argv.addAll(List.of("resume", conversation.id().get()));
    }
    argv.addAll(List.of("--", turn.prompt()));
    return List.copyOf(argv);
  }

  @Override
  public Map<String, String> environment(AgentPaths paths, ProviderEndpoint provider) {
    Map<String, String> env = new LinkedHashMap<>();
    env.put("HOME", paths.home().toString());
    env.put("CODEX_HOME", paths.home().resolve(CODEX_HOME).toString());
    env.put(KEY_VARIABLE, provider.placeholderToken());
    return Map.copyOf(env);
  }

  @Override
  public List<Path> prepare(AgentPaths paths) throws IOException {
    Files.createDirectories(paths.workspace());
    Path codexHome = Files.createDirectories(paths.home().resolve(CODEX_HOME));
    List<Path> written = new ArrayList<>(List.of(paths.workspace(), codexHome));
    written.addAll(SubAgentHooks.write(codexHome));
    return List.copyOf(written);
  }

  @Override
  public StreamProjector projector() {
    return new CodexStreamProjector();
  }

  @Override
  public Conversation begin(Conversation kept, RandomGenerator random) {
    return kept;
  }

  @Override
  public Conversation after(Conversation started, StreamProjector projector, boolean succeeded) {
    if (!succeeded) {
      return started;
    }
    return new Conversation(projector.announcedConversation().or(started::id), true);
  }
}
