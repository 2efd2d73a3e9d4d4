package dev.berth.client;

import java.util.List;
import java.util.Optional;

/**
 * {@code GET /config}: what a client may create.
 *
 * @param workloadTypes the types {@code POST /sessions} accepts, as {@code shell}
 */
public record BerthConfig(List<String> workloadTypes, Optional<ClaudeCode> claudeCode) {

  public BerthConfig {
    workloadTypes = workloadTypes == null ? List.of() : List.copyOf(workloadTypes);
  }

  /** {@code claudeCode}: the models an agent session may use. */
  public record ClaudeCode(Optional<String> defaultModel, List<String> models) {
    public ClaudeCode {
      models = models == null ? List.of() : List.copyOf(models);
    }
  }
}
