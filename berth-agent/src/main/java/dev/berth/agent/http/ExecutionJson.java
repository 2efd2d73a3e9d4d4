package dev.berth.agent.http;

import dev.berth.agent.execution.ExecutionView;
import dev.berth.core.execution.Execution;
import java.util.LinkedHashMap;
import java.util.Map;

/** The {@code Execution} object of the agent protocol; absent values are left out. */
final class ExecutionJson {

  private ExecutionJson() {}

  static Map<String, Object> of(ExecutionView view) {
    Execution execution = view.execution();
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("id", execution.id().value());
    body.put("command", execution.command());
    body.put("state", execution.state().name());
    execution.exitCode().ifPresent(code -> body.put("exitCode", code));
    body.put("submittedAt", execution.submittedAt().toString());
    execution.startedAt().ifPresent(at -> body.put("startedAt", at.toString()));
    execution.finishedAt().ifPresent(at -> body.put("finishedAt", at.toString()));
    body.put("timedOut", view.timedOut());
    body.put("output", Map.of("nextOffset", view.outputBytes()));
    return body;
  }
}
