package dev.berth.agent.http;

import dev.berth.agent.contract.ContractRecord;
import dev.berth.agent.contract.LeaseTerms;
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
    // The shell is one execution of the runtime: "exited" leaves the runtime running and healthy.
    shell.put(
        "state",
        view.shellRunning() ? "running" : view.lastShellExit().isPresent() ? "exited" : "none");
    if (view.shellRunning()) {
      view.shellPid().ifPresent(pid -> shell.put("pid", pid));
    }
    shell.put("starts", view.shellStarts());
    view.lastShellExit()
        .ifPresent(
            exit -> {
              shell.put("lastExitStatus", exit.status());
              shell.put("lastExitAt", exit.at().toString());
            });
    shell.put("cols", view.columns());
    shell.put("rows", view.rows());
    body.put("shell", shell);
    body.put("busy", view.busy());
    view.foreground().ifPresent(command -> body.put("foreground", command));
    body.put("executionRunning", view.executionRunning());
    view.lastOutputAt().ifPresent(at -> body.put("lastOutputAt", at.toString()));
    body.put("lease", lease(view.lease()));
    ContractRecord contract = view.contract();
    body.put("acceptedIntentVersion", contract.acceptedIntentVersion());
    body.put("acceptedDesired", contract.acceptedDesired().name());
    body.put("tombstoned", contract.tombstoned());
    view.stopReason().ifPresent(reason -> body.put("stopReason", reason));
    body.put("isolation", isolation(view.isolation()));
    Map<String, Object> disk = new LinkedHashMap<>();
    disk.put("capBytes", view.disk().capBytes());
    disk.put("usedBytes", view.disk().usedBytes());
    disk.put("availableBytes", view.disk().availableBytes());
    disk.put("enforced", view.disk().enforced());
    body.put("disk", disk);
    body.put("output", Map.of("startOffset", view.startOffset(), "nextOffset", view.nextOffset()));
    return body;
  }

  /**
   * The control lease and the local contract it holds the workload to: {@code state}, {@code
   * expiresAt}, {@code renewedAt} and {@code ttlSeconds} of the last renewal, the disconnect {@code
   * policy} with its {@code graceSeconds}, and {@code maxLifetimeSeconds} when one is set.
   */
  static Map<String, Object> lease(LeaseTerms terms) {
    Map<String, Object> lease = new LinkedHashMap<>();
    lease.put("state", terms.state().label());
    terms.state().expiresAt().ifPresent(at -> lease.put("expiresAt", at.toString()));
    terms.renewedAt().ifPresent(at -> lease.put("renewedAt", at.toString()));
    terms.ttl().ifPresent(ttl -> lease.put("ttlSeconds", ttl.toSeconds()));
    lease.put("policy", terms.policy().label());
    lease.put("graceSeconds", terms.grace().toSeconds());
    terms.maxLifetime().ifPresent(max -> lease.put("maxLifetimeSeconds", max.toSeconds()));
    return lease;
  }

  /** The isolation report, as {@code status.isolation} and {@code GET /v1/isolation} carry it. */
  static Map<String, Object> isolation(Isolation isolation) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("sandbox", isolation.sandbox());
    body.put("namespaces", isolation.namespaces());
    body.put("cgroup", isolation.cgroup());
    Map<String, Object> limits = new LinkedHashMap<>();
    limits.put("maxProcesses", isolation.limits().maxProcesses());
    limits.put("maxMemoryBytes", isolation.limits().maxMemoryBytes());
    limits.put("maxFileSizeBytes", isolation.limits().maxFileSizeBytes());
    limits.put("cpuMillis", isolation.limits().cpuMillis());
    limits.put("maxDiskBytes", isolation.limits().maxDiskBytes());
    body.put("limits", limits);
    body.put("cpuLimited", isolation.cpuLimited());
    body.put("disk", isolation.disk());
    body.put("filesystem", isolation.filesystem());
    Map<String, Object> user = new LinkedHashMap<>();
    user.put("uid", isolation.user().uid());
    user.put("name", isolation.user().name());
    // A root node gives each session its uid when it launches it: none yet before that.
    user.put("hostUid", isolation.user().hostUid() < 0 ? null : isolation.user().hostUid());
    user.put("hostGid", isolation.user().hostGid() < 0 ? null : isolation.user().hostGid());
    user.put("dedicated", isolation.user().dedicated());
    body.put("user", user);
    body.put(
        "network",
        Map.of("mode", isolation.network().mode(), "blocked", isolation.network().blocked()));
    body.put(
        "seccomp",
        Map.of("mode", isolation.seccomp().mode(), "denied", isolation.seccomp().denied()));
    body.put("weaknesses", isolation.weaknesses());
    body.put("strong", isolation.strong());
    return body;
  }
}
