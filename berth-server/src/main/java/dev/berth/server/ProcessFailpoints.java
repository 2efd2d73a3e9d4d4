package dev.berth.server;

import dev.berth.core.lifecycle.Failpoints;
import java.util.Arrays;
import java.util.Set;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Crash points for end-to-end tests: when {@code BERTH_FAILPOINTS} names a point of the lifecycle
 * protocols (e.g. {@code start.create-runtime}), the server halts there at once with exit code 137,
 * as SIGKILL would, without running shutdown hooks. Unset in production: then nothing happens.
 */
final class ProcessFailpoints implements Failpoints {

  static final String VARIABLE = "BERTH_FAILPOINTS";
  private static final Logger LOG = LoggerFactory.getLogger(ProcessFailpoints.class);

  private final Set<String> armed;

  private ProcessFailpoints(Set<String> armed) {
    this.armed = armed;
  }

  static Failpoints from(String value) {
    if (value == null || value.isBlank()) {
      return Failpoints.NONE;
    }
    Set<String> names =
        Arrays.stream(value.split(","))
            .map(String::strip)
            .filter(s -> !s.isEmpty())
            .collect(Collectors.toSet());
    LOG.warn("failpoints armed (test only): {}", names);
    return new ProcessFailpoints(names);
  }

  @Override
  public void reach(String name) {
    if (armed.contains(name)) {
      LOG.warn("failpoint {} reached: halting as if killed", name);
      Runtime.getRuntime().halt(137);
    }
  }
}
