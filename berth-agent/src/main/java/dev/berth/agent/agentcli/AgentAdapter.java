package dev.berth.agent.agentcli;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.random.RandomGenerator;

/**
 * One coding-agent CLI as a session workload, declared: how a prompt becomes its argv and
 * environment, what it keeps in the session's state, how its output is projected and when the next
 * prompt resumes the conversation. A new CLI is one more implementation; the runner, queue, output
 * and archive are shared.
 */
public sealed interface AgentAdapter permits ClaudeCodeAdapter, CodexAdapter {

  /** The workload type's wire name, e.g. {@code claude-code}. */
  String type();

  /** Whether the CLI takes per-session plugins. */
  boolean takesPlugins();

  /**
   * The argv of one run: the prompt is always the last argument, after {@code --}, so that no
   * prompt can pass itself off as an option.
   */
  List<String> argv(Path cli, Turn turn, Conversation conversation, ProviderEndpoint provider);

  /**
   * As {@link #argv(Path, Turn, Conversation, ProviderEndpoint)} for a session with plugins: {@code
   * plugins} is the folder of the session's plugin copies as the CLI sees it. Only an adapter that
   * {@link #takesPlugins()} is given one.
   */
  default List<String> argv(
      Path cli,
      Turn turn,
      Conversation conversation,
      ProviderEndpoint provider,
      java.util.Optional<Path> plugins) {
    return argv(cli, turn, conversation, provider);
  }

  /** The run's environment (on top of the sandbox's): where it lives and how it reaches a model. */
  Map<String, String> environment(AgentPaths paths, ProviderEndpoint provider);

  /**
   * Creates what the CLI expects in the session's state before a run (idempotent); the files and
   * directories it wrote, which the runner gives to the session's uid.
   */
  List<Path> prepare(AgentPaths paths) throws IOException;

  /** A projector for one run's standard output. */
  StreamProjector projector();

  /** The conversation a run starts from: the one kept, or a new one the adapter names. */
  Conversation begin(Conversation kept, RandomGenerator random);

  /**
   * The resume rule: the conversation after a run that {@code succeeded} or not. Only a run that
   * succeeded makes the next one resume; a failed or timed-out first run does not count.
   */
  Conversation after(Conversation started, StreamProjector projector, boolean succeeded);

  /**
   * This adapter for a session whose approval gate is on: a CLI that refuses tools nobody allowed
   * (Claude Code in print mode) is let offer the ones the gate exists to hold. Ungated, those stay
   * refused as before.
   */
  default AgentAdapter gated() {
    return this;
  }
}
