package dev.berth.core.agent;

import java.util.Map;
import java.util.Objects;

/**
 * What the agent reports about a running runtime for the public API and the idle policy.
 *
 * @param busy whether the shell runs a foreground job
 * @param executionRunning whether an execution runs beside the shell
 * @param published the members a caller may see (state, health, shell, output cursors, disk,
 *     isolation, …) as the agent words them, plain values, lists and maps; the agent's own
 *     bookkeeping (leases, intent versions) and host details (process ids) are never among them
 */
public record RuntimeReport(boolean busy, boolean executionRunning, Map<String, Object> published) {
  public RuntimeReport {
    // In the agent's order: callers read the members as the agent lists them.
    published =
        java.util.Collections.unmodifiableMap(
            new java.util.LinkedHashMap<>(Objects.requireNonNull(published, "published")));
  }
}
