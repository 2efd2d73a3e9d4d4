package dev.berth.agent.host;

import dev.berth.agent.execution.ExecutionOutputs;
import dev.berth.agent.execution.ExecutionView;
import dev.berth.agent.output.OutputLog;
import dev.berth.agent.output.OutputSink;
import dev.berth.core.error.NotFoundException;
import dev.berth.core.execution.ExecutionId;
import dev.berth.core.execution.ExecutionRequest;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A runtime's executions: a shell runtime's commands, run in its sandbox beside the shell, each
 * with its own output log under {@code state/executions/}, or an agent session's prompts, which are
 * listed, read and cancelled as executions too.
 */
final class RuntimeExecutions {

  private final String runtime;
  private final RuntimeLifecycle lifecycle;
  private final ShellSlot shell;
  private final Path state;
  private final HostConfig config;
  private final Clock clock;
  private final NodeMeters meters;
  private final Map<ExecutionId, OutputLog> logs = new ConcurrentHashMap<>();

  RuntimeExecutions(
      String runtime,
      RuntimeLifecycle lifecycle,
      ShellSlot shell,
      Path state,
      HostConfig config,
      Clock clock,
      NodeMeters meters) {
    this.runtime = runtime;
    this.lifecycle = lifecycle;
    this.shell = shell;
    this.state = state;
    this.config = config;
    this.clock = clock;
    this.meters = meters;
  }

  /** Executions run in the runtime's sandbox beside the shell, whether or not the shell runs. */
  ExecutionView start(ExecutionRequest request) {
    return shell.admitted().executions().start(request);
  }

  /** The shell's commands, or an agent session's prompts. */
  List<ExecutionView> list() {
    Workload current = lifecycle.workload();
    if (current instanceof Workload.Agent agent) {
      return agent.prompts().list();
    }
    return current.live().map(live -> live.executions().list()).orElse(List.of());
  }

  ExecutionView get(ExecutionId id) {
    Workload current = lifecycle.workload();
    Optional<ExecutionView> found =
        current instanceof Workload.Agent agent
            ? agent.prompts().get(id)
            : current.live().flatMap(live -> live.executions().get(id));
    return found.orElseThrow(
        () -> new NotFoundException("execution " + id.value() + " of " + runtime));
  }

  ExecutionView cancel(ExecutionId id) {
    get(id);
    Workload current = lifecycle.workload();
    if (current instanceof Workload.Agent agent) {
      return agent.prompts().cancel(id);
    }
    return current.live().orElseThrow().executions().cancel(id);
  }

  OutputLog output(ExecutionId id) {
    get(id);
    OutputLog log = logs.get(id);
    if (log == null) {
      throw new NotFoundException("output of execution " + id.value() + " of " + runtime);
    }
    return log;
  }

  /** How many executions run now (none for an agent session). */
  int running() {
    return lifecycle.workload().live().map(live -> live.executions().running()).orElse(0);
  }

  /** Where a shell's executions write: a log of their own each, metered. */
  ExecutionOutputs outputs() {
    return new ExecutionOutputs() {
      @Override
      public OutputSink open(ExecutionId id) {
        return new MeteredSink(openLog(id), NodeMeters.OutputKind.EXECUTION, meters);
      }

      @Override
      public void finished(ExecutionId id) {
        OutputLog log = logs.get(id);
        if (log != null) {
          log.close();
        }
      }
    };
  }

  /** Closes every execution's log (streams then end): the runtime is being closed. */
  void closeLogs() {
    logs.values().forEach(OutputLog::close);
  }

  private OutputLog openLog(ExecutionId id) {
    OutputLog log =
        OutputLog.open(
            state.resolve("executions").resolve(id.value()),
            config.executionOutputCapBytes(),
            clock);
    logs.put(id, log);
    return log;
  }
}
