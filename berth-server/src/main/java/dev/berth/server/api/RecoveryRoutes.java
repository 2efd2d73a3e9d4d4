package dev.berth.server.api;

import dev.berth.core.tenant.Admission;
import dev.berth.server.session.HighWaterMark;
import dev.berth.server.session.InstallationRecovery;
import dev.berth.server.session.RecoveryFindings;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import io.javalin.http.HandlerType;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import tools.jackson.databind.json.JsonMapper;

/**
 * Recovery mode, for the administrator: what it found ({@code GET /api/v1/admin/recovery}), its end
 * ({@code POST /api/v1/admin/recovery/approve}), and the refusal of new sessions while it is on
 * (503 {@code RECOVERY_MODE}).
 */
public final class RecoveryRoutes {

  static final String PATH = "/api/v1/admin/recovery";

  private final InstallationRecovery recovery;
  private final Runnable afterApproval;
  private final Admission admission;
  private final ApiProblems problems;
  private final JsonMapper json = JsonMapper.builder().build();

  /**
   * @param afterApproval what runs once a person ended recovery mode (a resync of every session)
   */
  public RecoveryRoutes(
      InstallationRecovery recovery, Runnable afterApproval, Admission admission) {
    this.recovery = recovery;
    this.afterApproval = afterApproval;
    this.admission = admission;
    this.problems = new ApiProblems(json);
  }

  void register(RoutesConfig routes) {
    // After authentication (registered before this), before the create route runs.
    routes.before(SessionRoutes.SESSIONS, this::refuseCreates);
    routes.get(PATH, this::show);
    routes.post(PATH + "/approve", this::approve);
  }

  private void refuseCreates(Context ctx) {
    if (HandlerType.POST.equals(ctx.method()) && recovery.active()) {
      problems.write(
          ctx,
          new ApiProblems.Kind(503, "RECOVERY_MODE"),
          "no session can be created while the control plane is in recovery mode (its store is"
              + " older than what the runtimes or archives saw); an administrator reads GET "
              + PATH
              + " and ends it with POST "
              + PATH
              + "/approve");
      ctx.skipRemainingHandlers();
    }
  }

  private void show(Context ctx) {
    admission.requireAdmin(Caller.of(ctx).scope().principal(), "read recovery mode");
    ctx.contentType("application/json").result(json.writeValueAsString(body(recovery.findings())));
  }

  private void approve(Context ctx) {
    Caller caller = Caller.of(ctx);
    admission.requireAdmin(caller.scope().principal(), "end recovery mode");
    if (!recovery.findings().active()) {
      problems.write(
          ctx,
          new ApiProblems.Kind(409, "NOT_IN_RECOVERY"),
          "recovery mode is not on; GET " + PATH + " shows what the last one found");
      return;
    }
    RecoveryFindings approved = recovery.approve(caller.actor());
    afterApproval.run();
    ctx.contentType("application/json").result(json.writeValueAsString(body(approved)));
  }

  static Map<String, Object> body(RecoveryFindings f) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("active", f.active());
    f.since().map(Instant::toString).ifPresent(s -> body.put("since", s));
    if (!f.reason().isEmpty()) {
      body.put("reason", f.reason());
    }
    body.put("storeEpoch", f.storeEpoch());
    body.put("highWaterMarks", f.marks().stream().map(RecoveryRoutes::mark).toList());
    body.put("adoptedSessions", f.adopted());
    body.put("quarantinedRuntimes", f.quarantinedRuntimes());
    body.put("quarantinedArchives", f.quarantinedArchives());
    body.put("unreachableSessions", f.unreachable());
    f.approvedAt().map(Instant::toString).ifPresent(a -> body.put("approvedAt", a));
    f.approvedBy().ifPresent(b -> body.put("approvedBy", b));
    return body;
  }

  private static Map<String, Object> mark(HighWaterMark m) {
    Map<String, Object> mark = new LinkedHashMap<>();
    mark.put("source", m.source());
    mark.put("epoch", m.epoch());
    return mark;
  }
}
