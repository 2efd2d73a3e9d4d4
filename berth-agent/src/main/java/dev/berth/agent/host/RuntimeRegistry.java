package dev.berth.agent.host;

import dev.berth.core.error.NotFoundException;
import dev.berth.core.session.SessionId;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The runtimes this host holds, at most one per session: an entry from the runtime's creation (or
 * reload) to its removal. Read without the sessions' locks; changed under them.
 */
final class RuntimeRegistry {

  private static final Logger LOG = LoggerFactory.getLogger(RuntimeRegistry.class);

  private final ConcurrentMap<SessionId, HostedRuntime> runtimes = new ConcurrentHashMap<>();

  /**
   * The session's runtime.
   *
   * @throws NotFoundException when this host holds none for it
   */
  HostedRuntime get(SessionId session) {
    HostedRuntime runtime = runtimes.get(session);
    if (runtime == null) {
      throw new NotFoundException("runtime of session " + session.value() + " on this host");
    }
    return runtime;
  }

  Optional<HostedRuntime> find(SessionId session) {
    return Optional.ofNullable(runtimes.get(session));
  }

  void put(SessionId session, HostedRuntime runtime) {
    runtimes.put(session, runtime);
  }

  void remove(SessionId session) {
    runtimes.remove(session);
  }

  Collection<HostedRuntime> all() {
    return runtimes.values();
  }

  /** How many runtimes this host holds, in any state. */
  int size() {
    return runtimes.size();
  }

  /** Every runtime's view, by runtime name. */
  List<RuntimeView> views() {
    return runtimes.values().stream()
        .map(HostedRuntime::view)
        .sorted(Comparator.comparing(v -> v.descriptor().runtime()))
        .toList();
  }

  /** How many of the runtimes' shells are alive now. */
  int runningShells() {
    return (int) runtimes.values().stream().filter(r -> r.shell().alive()).count();
  }

  /** How many executions run now, over every runtime. */
  int runningExecutions() {
    return runtimes.values().stream().mapToInt(r -> r.executions().running()).sum();
  }

  /** Moves every runtime's control lease on; one that fails does not keep the others waiting. */
  void tickLeases() {
    for (HostedRuntime runtime : runtimes.values()) {
      try {
        runtime.lease().tick();
      } catch (RuntimeException e) {
        LOG.warn("lease tick of {} failed", runtime.descriptor().runtime(), e);
      }
    }
  }
}
