package dev.berth.server.session;

import dev.berth.core.idle.WorkloadActivity;
import dev.berth.core.session.Phase;
import dev.berth.core.session.Session;
import dev.berth.server.runtime.AgentData;
import dev.berth.server.runtime.AgentEndpoints;
import java.util.Optional;
import tools.jackson.databind.JsonNode;

/** Asks a session's agent whether work is in progress, for the idle policy. */
public final class WorkloadProbe {

  private final AgentEndpoints endpoints;
  private final AgentData data;

  public WorkloadProbe(AgentEndpoints endpoints, AgentData data) {
    this.endpoints = endpoints;
    this.data = data;
  }

  /**
   * What the runtime reports (busy shell, running execution) with the session's own {@code
   * busySince}; empty when the session holds no ready runtime or its agent does not answer, so that
   * nobody mistakes silence for quiet.
   */
  public Optional<WorkloadActivity> probe(Session s) {
    if (s.phase() != Phase.READY || s.runtime().isEmpty()) {
      return Optional.empty();
    }
    try {
      JsonNode status = data.status(endpoints.resolve(s.runtime().get()));
      return Optional.of(
          new WorkloadActivity(
              status.path("busy").asBoolean(false),
              status.path("executionRunning").asBoolean(false),
              s.activity().busySince()));
    } catch (RuntimeException unreachable) {
      return Optional.empty();
    }
  }
}
