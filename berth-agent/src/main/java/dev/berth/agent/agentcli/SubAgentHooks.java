package dev.berth.agent.agentcli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;

/**
 * Codex's sub-agents, held to the turn that started them. Codex ({@code codex exec}) gives its
 * model {@code spawn_agent} and its siblings, but ends the process, and with it every sub-agent
 * still working, as soon as the main agent's turn ends: a sub-agent's result would be lost. Berth's
 * hooks (Codex's own hook mechanism, in {@code $CODEX_HOME/hooks.json}) count the sub-agents a turn
 * starts ({@code PostToolUse} of {@code spawn_agent} or {@code followup_task}) and finish ({@code
 * SubagentStop}); when the main agent would stop ({@code Stop}) while some still work, the hook
 * waits for them — 10 minutes at most in one run — and then blocks the stop with a prompt to report
 * their results, so that the main agent's follow-up turn, in the same run, reports them (each
 * sub-agent's final answer is delivered to it). A new run ({@code SessionStart}) forgets the
 * counts: a run's sub-agents end with it.
 *
 * <p>Both files are Berth's: replaced before every run, never written through a link the workload
 * may have put in their place; the counts live in {@code $CODEX_HOME/berth-subagents/}, which the
 * hook (the session's user, in its sandbox) writes.
 */
final class SubAgentHooks {

  /** Codex's hooks file in its home. */
  static final String HOOKS = "hooks.json";

  /** The hook script in Codex's home. */
  static final String SCRIPT = "berth-subagents.sh";

  /** How long a run's main agent waits for its sub-agents, at most, in seconds. */
  static final int WAIT_SECONDS = 600;

  private static final String CONFIG =
      """
      {"hooks": {
        "SessionStart": [{"hooks": [{"type": "command", "command": "bash \\"$CODEX_HOME/%1$s\\" session"}]}],
        "PostToolUse": [{"hooks": [{"type": "command", "command": "bash \\"$CODEX_HOME/%1$s\\" tool"}]}],
        "SubagentStop": [{"hooks": [{"type": "command", "command": "bash \\"$CODEX_HOME/%1$s\\" subagent-stop"}]}],
        "Stop": [{"hooks": [{"type": "command", "command": "bash \\"$CODEX_HOME/%1$s\\" stop", "timeout": %2$d}]}]
      }}
      """
          .formatted(SCRIPT, WAIT_SECONDS + 60);

  private static final String HOOK =
      """
      #!/bin/bash
      # Berth's hook for Codex's sub-agents (written by Berth before every run; see SubAgentHooks).
      # A turn whose agent started sub-agents does not end while they work: its Stop waits for them,
      # %1$d seconds at most in one run, then asks the agent for a follow-up that reports them.
      set -u
      dir="${CODEX_HOME:?}/berth-subagents"
      input=$(cat)
      mkdir -p "$dir/started" "$dir/stopped"
      pending() { echo $(( $(ls -A "$dir/started" | wc -l) - $(ls -A "$dir/stopped" | wc -l) )); }
      mark() { : > "$1/$(date +%%s%%N)-$$-$RANDOM"; }
      case "${1:-}" in
        session) rm -rf "$dir/started" "$dir/stopped" "$dir/deadline" ;;
        tool)
          if printf '%%s' "$input" | grep -q '"tool_name":"[^"]*\\(spawn_agent\\|followup_task\\)"'; then
            mark "$dir/started"
          fi ;;
        subagent-stop) mark "$dir/stopped" ;;
        stop)
          [ "$(pending)" -gt 0 ] || exit 0
          [ -f "$dir/deadline" ] || echo $(( $(date +%%s) + %1$d )) > "$dir/deadline"
          deadline=$(cat "$dir/deadline")
          while [ "$(pending)" -gt 0 ] && [ "$(date +%%s)" -lt "$deadline" ]; do sleep 1; done
          if [ "$(pending)" -gt 0 ]; then
            reason="[berth] Your sub-agents did not finish within 10 minutes; this turn ends now and they stop with it. Report what they reported so far, and which did not finish."
          else
            reason="[berth] Your sub-agents have finished. Report their results."
          fi
          rm -rf "$dir/started" "$dir/stopped"
          printf '{"decision":"block","reason":"%%s"}\\n' "$reason" ;;
      esac
      exit 0
      """
          .formatted(WAIT_SECONDS);

  private SubAgentHooks() {}

  /** Writes the hooks into {@code codexHome}; the files written, for the session's user. */
  static List<Path> write(Path codexHome) throws IOException {
    return List.of(
        replace(codexHome.resolve(HOOKS), CONFIG), replace(codexHome.resolve(SCRIPT), HOOK));
  }

  private static Path replace(Path file, String content) throws IOException {
    Files.deleteIfExists(file); // a link the workload left goes, not what it points at
    Files.writeString(file, content, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
    return file;
  }
}
