package dev.berth.agent.agentcli;

import java.util.Optional;

/**
 * Reads one run's standard output, line by line, and says what of it the session keeps. One
 * projector per run: it holds what it needs to know across lines (whether a message ended with a
 * newline, whether any answer streamed).
 */
public interface StreamProjector {

  /** One line of the CLI's standard output, without its line end. */
  void line(String line, ProjectionSink sink);

  /** The output ended (the CLI exited or was killed): whatever is still owed to the sink. */
  void end(ProjectionSink sink);

  /**
   * The conversation id the CLI announced in this run, when it chooses its own (Codex); empty when
   * Berth chose it (Claude Code) or none was seen.
   */
  default Optional<String> announcedConversation() {
    return Optional.empty();
  }
}
