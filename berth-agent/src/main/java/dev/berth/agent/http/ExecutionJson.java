package dev.berth.agent.http;

import dev.berth.agent.execution.ExecutionView;
import dev.berth.protocol.execution.ExecutionWire;
import java.util.Map;

/** The {@code Execution} object of the agent protocol (written as {@link ExecutionWire} says). */
final class ExecutionJson {

  private ExecutionJson() {}

  static Map<String, Object> of(ExecutionView view) {
    return ExecutionWire.write(view.report());
  }
}
