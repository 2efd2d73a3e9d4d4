package dev.berth.agent.http;

import dev.berth.agent.contract.ContractRecord;
import dev.berth.agent.host.RuntimeView;
import dev.berth.agent.isolation.Isolation;
import java.util.LinkedHashMap;
import java.util.Map;

/** The {@code SessionStatus} object of the agent protocol; absent values are left out. */
final class StatusJson {

  private StatusJson() {}

  static Map<String, Object> of(RuntimeView view) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("session", view.descriptor().session());
    body.put("runtime", view.descriptor().runtime());
    body.put("incarnation", view.descriptor().incarnation());
    body.put("labels", view.descriptor().labels());
    body.put("workload", view.descriptor().workload());
    body.put("createdAt", view.descriptor().createdAt().toString());
    body.put("state", view.state().wire());
    body.put("health", view.state().health());
    Map<String, Object> shell = new LinkedHashMap<>();
    view.shellPid().ifPresent(pid -> shell.put("pid", pid));
    view.exitCode().ifPresent(code -> shell.put("exitCode", code));
    shell.put("cols", view.columns());
    shell.put("rows", view.rows());
    body.put("shell", shell);
    body.put("busy", view.busy());
    view.foreground().ifPresent(command -> body.put("foreground", command));
    body.put("executionRunning", view.executionRunning());
    view.lastOutputAt().ifPresent(at -> body.put("lastOutputAt", at.toString()));
    Map<String, Object> lease = new LinkedHashMap<>();
    lease.put("state", view.lease().label());
    view.lease().expiresAt().ifPresent(at -> lease.put("expiresAt", at.toString()));
    body.put("lease", lease);
    ContractRecord contract = view.contract();
    body.put("acceptedIntentVersion", contract.acceptedIntentVersion());
    body.put("acceptedDesired", contract.acceptedDesired().name());
    body.put("tombstoned", contract.tombstoned());
    view.stopReason().ifPresent(reason -> body.put("stopReason", reason));
    body.put("isolation", isolation(view.isolation()));
    body.put("output", Map.of("startOffset", view.startOffset(), "nextOffset", view.nextOffset()));
    return body;
  }

  private static Map<String, Object> isolation(Isolation isolation) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("sandbox", isolation.sandbox());
    body.put("namespaces", isolation.namespaces());
    body.put("cgroup", isolation.cgroup());
    body.put(
        "limits",
        Map.of(
            "maxProcesses", isolation.limits().maxProcesses(),
            "maxMemoryBytes", isolation.limits().maxMemoryBytes(),
            "maxFileSizeBytes", isolation.limits().maxFileSizeBytes()));
    return body;
  }
}
