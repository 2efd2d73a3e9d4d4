package dev.berth.server.health;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether this server can do its work now ({@code GET /readyz}): each named check is run in turn,
 * and the server is ready when all pass. The answer names each check and whether it passed, never
 * why it failed: the route needs no token, so the reasons (paths, addresses) go to the log.
 */
public final class Readiness {

  private static final Logger LOG = LoggerFactory.getLogger(Readiness.class);

  /**
   * One thing the server needs.
   *
   * @param name how the answer and the log name it ({@code store}, {@code runtime}, {@code
   *     archive})
   * @param probe passes by returning, fails by throwing with the reason
   */
  public record Check(String name, Runnable probe) {
    public Check {
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(probe, "probe");
    }
  }

  /** What the checks said, in their order: each name to {@code ok} or {@code failed}. */
  public record Answer(Map<String, String> checks) {
    public Answer {
      checks = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(checks));
    }

    public boolean ready() {
      return checks.values().stream().allMatch("ok"::equals);
    }
  }

  private final List<Check> checks;

  public Readiness(List<Check> checks) {
    this.checks = List.copyOf(checks);
  }

  /** Runs every check (a failed one does not stop the others). */
  public Answer check() {
    Map<String, String> results = new LinkedHashMap<>();
    for (Check check : checks) {
      try {
        check.probe().run();
        results.put(check.name(), "ok");
      } catch (RuntimeException e) {
        LOG.warn("readiness check {} failed: {}", check.name(), e.getMessage());
        results.put(check.name(), "failed");
      }
    }
    return new Answer(results);
  }
}
