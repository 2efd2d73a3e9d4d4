package dev.berth.agent.proxy.gate;

import dev.berth.core.approval.ApprovalPolicy;
import java.util.Objects;
import java.util.Set;

/**
 * Which tool calls a session's policy holds for a decision. {@code external}: the calls that reach
 * outside the session by themselves: Claude Code's {@code WebFetch} and {@code WebSearch}, and an
 * MCP server's tools ({@code mcp__<server>__<tool>}, as both Claude Code and Codex name them; Codex
 * may also send one inside a namespace of that name). {@code all}: every call.
 *
 * <p>Codex's web search is not among them: it is a tool the provider runs itself ({@code
 * web_search_call}), so by the time the proxy sees it, it has run; docs/agents.md says so.
 */
public record GatePolicy(ApprovalPolicy policy) {

  private static final Set<String> EXTERNAL = Set.of("WebFetch", "WebSearch");

  public GatePolicy {
    Objects.requireNonNull(policy, "policy");
  }

  /** Whether a call of {@code tool} (in {@code namespace}, empty when none) waits. */
  public boolean holds(String tool, String namespace) {
    return switch (policy) {
      case OFF -> false;
      case ALL -> true;
      case EXTERNAL ->
          EXTERNAL.contains(tool) || tool.startsWith("mcp__") || namespace.startsWith("mcp__");
    };
  }
}
