package dev.berth.server.api;

import dev.berth.core.access.WorkloadCatalog;
import dev.berth.core.operation.Operation;
import dev.berth.core.session.Condition;
import dev.berth.core.session.Obligation;
import dev.berth.core.session.Phase;
import dev.berth.core.session.PluginName;
import dev.berth.core.session.PublicState;
import dev.berth.core.session.Session;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The wire objects of the public API (docs/api.md): the original platform's Session fields first,
 * then what Berth adds. Absent values are left out, never sent as null.
 */
final class ApiJson {

  private ApiJson() {}

  static Map<String, Object> session(
      Session s,
      Instant now,
      Duration idleAfter,
      Optional<dev.berth.core.archive.RestoreProgress.Progress> restore,
      int pendingApprovals) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("id", s.id().value());
    body.put("name", s.name());
    body.put("workloadType", s.workloadType().value());
    s.model().ifPresent(m -> body.put("model", m.value()));
    if (WorkloadCatalog.isAgent(s.workloadType())) {
      body.put("plugins", s.plugins().stream().map(PluginName::value).toList());
    }
    PublicState state = PublicState.of(s, now, idleAfter);
    body.put("state", state.wireName());
    body.put("createdAt", s.createdAt().toString());
    body.put("lastAccess", s.activity().lastAccess().toString());
    s.runtime()
        .filter(r -> s.phase() != Phase.TERMINATED)
        .ifPresent(r -> body.put("pod", r.name()));
    if (state == PublicState.SNAPSHOT) {
      s.archive()
          .ifPresent(
              a -> {
                Map<String, Object> checkpoint = new LinkedHashMap<>();
                checkpoint.put("ref", a.uri());
                checkpoint.put("sizeBytes", a.sizeBytes());
                checkpoint.put("createdAt", a.createdAt().toString());
                a.source().ifPresent(r -> checkpoint.put("reclaimed", "runtime " + r));
                body.put("checkpoint", checkpoint);
              });
    }
    body.put("tenant", s.tenant().value());
    body.put("phase", s.phase().name());
    body.put("intentVersion", s.intent().version());
    body.put("intent", intent(s));
    s.runtime().ifPresent(r -> body.put("runtime", runtime(r)));
    s.archive().ifPresent(a -> body.put("archive", archive(a)));
    body.put("conditions", s.conditions().items().stream().map(ApiJson::condition).toList());
    body.put("reservation", s.reservation().name());
    // While a restore streams its archive: how far it got, for a progress bar.
    restore
        .filter(p -> s.phase() == Phase.RESUMING)
        .ifPresent(
            p -> {
              body.put("restore", progress(p));
            });
    body.put("obligations", s.obligations().stream().map(ApiJson::obligation).toList());
    Map<String, Object> activity = new LinkedHashMap<>();
    activity.put("lastAccess", s.activity().lastAccess().toString());
    s.activity().keepAliveUntil().ifPresent(t -> activity.put("keepAliveUntil", t.toString()));
    body.put("activity", activity);
    s.failure()
        .ifPresent(
            f -> body.put("failure", Map.of("reason", f.reason().name(), "message", f.message())));
    body.put("pendingApprovals", pendingApprovals);
    return body;
  }

  static Map<String, Object> progress(dev.berth.core.archive.RestoreProgress.Progress p) {
    Map<String, Object> progress = new LinkedHashMap<>();
    progress.put("generation", p.generation());
    progress.put("bytes", p.bytes());
    progress.put("totalBytes", p.totalBytes());
    progress.put("updatedAt", p.updatedAt().toString());
    return progress;
  }

  static Map<String, Object> operation(Operation op) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("id", op.id().value());
    body.put("sessionId", op.sessionId().value());
    body.put("type", op.type().name());
    body.put("state", op.state().name());
    body.put("intentVersion", op.intentVersion());
    body.put(
        "steps",
        op.steps().stream()
            .map(
                step ->
                    Map.<String, Object>of(
                        "name",
                        step.name().name(),
                        "at",
                        step.at().toString(),
                        "detail",
                        step.detail()))
            .toList());
    body.put("attempts", op.attempts());
    body.put("deadline", op.deadline().toString());
    op.error()
        .ifPresent(e -> body.put("error", Map.of("reason", e.reason(), "message", e.message())));
    body.put("createdAt", op.createdAt().toString());
    op.finishedAt().ifPresent(t -> body.put("finishedAt", t.toString()));
    return body;
  }

  private static Map<String, Object> intent(Session s) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("desired", s.intent().desired().name());
    body.put("version", s.intent().version());
    body.put("requestedAt", s.intent().requestedAt().toString());
    body.put("requestedBy", s.intent().requestedBy());
    body.put("reason", s.intent().reason());
    return body;
  }

  private static Map<String, Object> runtime(dev.berth.core.session.RuntimeRef r) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("kind", r.kind());
    body.put("name", r.name());
    body.put("incarnation", r.incarnation());
    r.startedAt().ifPresent(t -> body.put("startedAt", t.toString()));
    r.lastObservedAt().ifPresent(t -> body.put("lastObservedAt", t.toString()));
    return body;
  }

  private static Map<String, Object> archive(dev.berth.core.session.ArchiveRef a) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("generation", a.generation());
    body.put("uri", a.uri());
    body.put("sizeBytes", a.sizeBytes());
    body.put("sha256", a.sha256());
    body.put("createdAt", a.createdAt().toString());
    body.put("contents", List.copyOf(a.contents()));
    a.source().ifPresent(r -> body.put("source", r));
    body.put(
        "skipped",
        a.skipped().stream().map(k -> Map.of("path", k.path(), "reason", k.reason())).toList());
    return body;
  }

  private static Map<String, Object> condition(Condition c) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("type", c.type().wireName());
    body.put(
        "status",
        switch (c.status()) {
          case TRUE -> "True";
          case FALSE -> "False";
          case UNKNOWN -> "Unknown";
        });
    body.put("reason", c.reason());
    body.put("message", c.message());
    body.put("lastTransitionTime", c.lastTransitionTime().toString());
    return body;
  }

  private static Map<String, Object> obligation(Obligation o) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("action", o.action().name());
    body.put("resource", o.resource());
    body.put("state", o.state().name());
    body.put("detail", o.detail());
    body.put("attempts", o.attempts());
    o.retainUntil().ifPresent(t -> body.put("retainUntil", t.toString()));
    return body;
  }
}
