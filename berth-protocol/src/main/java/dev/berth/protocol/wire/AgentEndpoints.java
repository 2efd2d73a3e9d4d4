package dev.berth.protocol.wire;

import dev.berth.core.session.RuntimeRef;

/**
 * Where a runtime's agent answers for data-plane calls (reads, input, streams, executions),
 * resolved on every call: a node that restarted, or a pod that was rescheduled, has a new address.
 */
public interface AgentEndpoints {

  /** The session-scoped base URL of the runtime's agent and the token it expects. */
  Endpoint resolve(RuntimeRef runtime);

  /** A call to the runtime's agent could not reach it: the next {@link #resolve} looks again. */
  default void unreachable(RuntimeRef runtime) {}

  /**
   * @param sessionUrl e.g. {@code http://127.0.0.1:41234/v1/sessions/<sid>}
   */
  record Endpoint(String sessionUrl, String token, String runtimeName) {

    /** The URL of {@code path} under the session, scoped to this runtime. */
    public String url(String path, String query) {
      String scope = "runtime=" + runtimeName;
      return sessionUrl + path + "?" + (query.isEmpty() ? scope : query + "&" + scope);
    }
  }
}
