package dev.berth.agent.agentcli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.random.RandomGenerator;

/**
 * Claude Code ({@code claude -p}, one run per prompt), and every CLI that speaks its flags against
 * an Anthropic-compatible endpoint: {@code minimax-code} is this adapter under its own type name,
 * with its own provider profile and CLI path.
 *
 * <p>The conversation id is a UUID Berth chooses: the first run names it with {@code --session-id};
 * once a run has succeeded, the next ones {@code --resume} it. A failed first run does not count,
 * and the next run starts a conversation of a new id (the CLI may have recorded the failed one).
 *
 * <p>Managed settings in the CLI's home allow the file and shell tools; the CLI runs them inside
 * the session's sandbox like anything the session runs. A session whose approval gate is on ({@link
 * #gated}) also allows {@code WebFetch} and {@code WebSearch}: print mode cannot ask anyone, so a
 * tool not allowed is refused outright, and the gate (in the credential proxy, which holds such a
 * call until a person decides) would ask about a call the CLI then refuses anyway. Without a gate
 * they stay refused: nobody would decide on them. {@code --dangerously-skip-permissions} is never
 * passed.
 *
 * @param webTools whether the web tools are allowed: the session's approval gate is on
 */
public record ClaudeCodeAdapter(String type, boolean webTools) implements AgentAdapter {

  /** The settings file Berth manages in the CLI's home. */
  static final String SETTINGS = ".claude/settings.json";

  static final String MANAGED_SETTINGS =
      "{\"permissions\":{\"allow\":[\"Read\",\"Write\",\"Edit\",\"Glob\",\"Grep\",\"Bash\"]}}\n";

  /** The managed settings of a gated session: the web tools too, for the gate to decide on. */
  static final String GATED_SETTINGS =
      "{\"permissions\":{\"allow\":[\"Read\",\"Write\",\"Edit\",\"Glob\",\"Grep\",\"Bash\","
          + "\"WebFetch\",\"WebSearch\"]}}\n";

  /** Claude Code itself. */
  public static ClaudeCodeAdapter claudeCode() {
    return new ClaudeCodeAdapter("claude-code", false);
  }

  /** The MiniMax Code workload: Claude Code's flags against a MiniMax endpoint. */
  public static ClaudeCodeAdapter minimaxCode() {
    return new ClaudeCodeAdapter("minimax-code", false);
  }

  @Override
  public AgentAdapter gated() {
    return new ClaudeCodeAdapter(type, true);
  }

  @Override
  public boolean takesPlugins() {
    return true;
  }

  @Override
  public List<String> argv(
      Path cli, Turn turn, Conversation conversation, ProviderEndpoint provider) {
    return argv(cli, turn, conversation, provider, java.util.Optional.empty());
  }

  /** With plugins, {@code --plugin-dir FOLDER}: Claude Code loads each plugin in the folder. */
  @Override
  public List<String> argv(
      Path cli,
      Turn turn,
      Conversation conversation,
      ProviderEndpoint provider,
      java.util.Optional<Path> plugins) {
    String id =
        conversation
            .id()
            .orElseThrow(
                () -> new IllegalStateException("a Claude Code run needs its conversation id"));
    List<String> argv = new ArrayList<>(List.of(cli.toString()));
    argv.addAll(conversation.hasRun() ? List.of("--resume", id) : List.of("--session-id", id));
    turn.concreteModel().ifPresent(model -> argv.addAll(List.of("--model", model)));
    plugins.ifPresent(folder -> argv.addAll(List.of("--plugin-dir", folder.toString())));
    argv.addAll(
        List.of(
            "--permission-mode",
            turn.permissionMode(),
            "-p",
            "--output-format",
            "stream-json",
            "--verbose",
            "--include-partial-messages",
            "--",
            turn.prompt()));
    return List.copyOf(argv);
  }

  @Override
  public Map<String, String> environment(AgentPaths paths, ProviderEndpoint provider) {
    Map<String, String> env = new LinkedHashMap<>();
    env.put("HOME", paths.home().toString());
    env.put("ANTHROPIC_BASE_URL", provider.baseUrl());
    env.put("ANTHROPIC_AUTH_TOKEN", provider.placeholderToken());
    // Nothing leaves but the model's traffic through the proxy (which reaches one upstream only).
    env.put("DISABLE_TELEMETRY", "1");
    env.put("DISABLE_AUTOUPDATER", "1");
    env.put("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1");
    return Map.copyOf(env);
  }

  @Override
  public List<Path> prepare(AgentPaths paths) throws IOException {
    Files.createDirectories(paths.workspace());
    Path settings = paths.home().resolve(SETTINGS);
    Files.createDirectories(settings.getParent());
    // Managed: replaced before every run (never written through a link the workload may have put
    // there), so a prompt that edited it gains nothing next time.
    Files.deleteIfExists(settings);
    Files.writeString(settings, webTools ? GATED_SETTINGS : MANAGED_SETTINGS);
    return List.of(paths.workspace(), settings.getParent(), settings);
  }

  @Override
  public StreamProjector projector() {
    return new ClaudeStreamProjector();
  }

  @Override
  public Conversation begin(Conversation kept, RandomGenerator random) {
    if (kept.id().isPresent()) {
      return kept;
    }
    return new Conversation(Optional.of(uuid(random)), false);
  }

  @Override
  public Conversation after(Conversation started, StreamProjector projector, boolean succeeded) {
    if (succeeded) {
      return new Conversation(started.id(), true);
    }
    // A first run that failed may have left a conversation under its id; the next starts anew.
    return started.hasRun() ? started : Conversation.none();
  }

  private static String uuid(RandomGenerator random) {
    long high = (random.nextLong() & ~0xF000L) | 0x4000L;
    long low = (random.nextLong() & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L;
    return new UUID(high, low).toString();
  }
}
