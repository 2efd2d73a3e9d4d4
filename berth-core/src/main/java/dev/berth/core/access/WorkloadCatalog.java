package dev.berth.core.access;

import dev.berth.core.session.PluginName;
import dev.berth.core.session.WorkloadType;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * What this installation runs. Berth knows a fixed family of workload types (a shell and the agent
 * CLIs); an installation runs those it was configured for — an agent type needs its CLI and its
 * provider. A known type that is not configured is refused with 503 and the reason (never a shell
 * in its place), after the tenant's grant is checked, so that a tenant not granted the type hears
 * 403 whether or not it is configured.
 */
public interface WorkloadCatalog {

  /** The agent types Berth has adapters for. */
  Set<WorkloadType> AGENT_TYPES =
      Set.of(
          new WorkloadType("claude-code"),
          new WorkloadType("codex"),
          new WorkloadType("minimax-code"));

  /**
   * Other names a create accepts for a type: {@code approval-gated} is the original platform's name
   * of the agent type whose external tool calls wait for approval, which is {@code minimax-code}
   * here (its approval policy is {@code external} by default). A session records the type, never
   * the alias.
   */
  Map<String, String> ALIASES = Map.of("approval-gated", "minimax-code");

  /** Why {@code type} cannot run here now, naming what is missing; empty when it can. */
  Optional<String> unavailable(WorkloadType type);

  /**
   * The agent types configured here with their model catalogs, as {@code GET /config} lists them.
   */
  List<AgentOffer> configuredAgents();

  /**
   * The plugins of this installation's marketplace, which sessions of a type that takes plugins may
   * ask for by name; none when no marketplace is configured.
   */
  default List<PluginName> marketplace() {
    return List.of();
  }

  /**
   * An agent type this installation runs.
   *
   * @param defaultModel what {@code platform-default} means here: a concrete model, or {@code
   *     platform-default} itself when the CLI's own default applies
   * @param models the catalog offered to pickers; not an allowlist
   * @param takesPlugins whether its sessions may ask for the {@link #marketplace()}'s plugins
   */
  record AgentOffer(
      WorkloadType type, String defaultModel, List<String> models, boolean takesPlugins) {
    public AgentOffer {
      models = List.copyOf(models);
    }
  }

  /** Whether Berth knows {@code type} at all (a name outside the family is a 400). */
  static boolean known(WorkloadType type) {
    return type.equals(WorkloadType.SHELL) || AGENT_TYPES.contains(type);
  }

  /** Whether sessions of {@code type} run an agent CLI (they take a model and prompts). */
  static boolean isAgent(WorkloadType type) {
    return AGENT_TYPES.contains(type);
  }

  /** An installation that runs shells only. */
  static WorkloadCatalog shellsOnly() {
    return new WorkloadCatalog() {
      @Override
      public Optional<String> unavailable(WorkloadType type) {
        return type.equals(WorkloadType.SHELL)
            ? Optional.empty()
            : Optional.of(
                "workload type "
                    + type
                    + " is not configured on this installation: its CLI and provider are not set;"
                    + " an operator configures them (docs/agents.md)");
      }

      @Override
      public List<AgentOffer> configuredAgents() {
        return List.of();
      }
    };
  }
}
