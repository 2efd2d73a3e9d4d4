package dev.berth.server.api;

import dev.berth.core.approval.Approval;
import dev.berth.core.approval.ApprovalId;
import dev.berth.core.approval.ApprovalState;
import dev.berth.core.approval.DecideApproval;
import dev.berth.core.error.ApprovalRefusedException;
import dev.berth.core.session.Session;
import dev.berth.core.session.SessionId;
import dev.berth.server.api.body.ApprovalDecisionBody;
import dev.berth.server.session.ApprovalUseCases;
import dev.berth.server.session.UseCases;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import tools.jackson.databind.json.JsonMapper;

/**
 * An agent session's approvals: listed ({@code GET approvals}) and decided ({@code POST
 * approvals/{approvalId}}), tenant-scoped like every session route: a session the caller does not
 * see is {@code 404}, as a missing one.
 */
final class ApprovalRoutes {

  private final UseCases sessions;
  private final ApprovalUseCases approvals;
  private final Bodies bodies;
  private final JsonMapper json;

  ApprovalRoutes(UseCases sessions, ApprovalUseCases approvals, Bodies bodies, JsonMapper json) {
    this.sessions = sessions;
    this.approvals = approvals;
    this.bodies = bodies;
    this.json = json;
  }

  void register(RoutesConfig routes) {
    routes.get(SessionRoutes.SESSION + "/approvals", this::list);
    routes.post(SessionRoutes.SESSION + "/approvals/{approvalId}", this::decide);
  }

  private void list(Context ctx) {
    Session session = sessions.lookup().get(Caller.of(ctx).scope(), SessionRoutes.id(ctx));
    Optional<ApprovalState> state =
        Optional.ofNullable(ctx.queryParam("state")).map(ApprovalState::parse);
    List<Map<String, Object>> items =
        approvals.read().list(session.id(), state).stream().map(ApprovalRoutes::json).toList();
    send(ctx, Map.of("items", items));
  }

  private void decide(Context ctx) {
    Caller caller = Caller.of(ctx);
    Session session = sessions.lookup().get(caller.scope(), SessionRoutes.id(ctx));
    ApprovalDecisionBody body = bodies.read(ctx, ApprovalDecisionBody.class, false);
    Approval decided =
        approvals
            .decide()
            .decide(
                session.id(),
                approvalId(session.id(), ctx.pathParam("approvalId")),
                body.approves() ? DecideApproval.Decision.APPROVE : DecideApproval.Decision.REJECT,
                body.reason(),
                caller.actor());
    send(ctx, json(decided));
  }

  /** An approval id that is not one is not found, as a missing approval. */
  static ApprovalId approvalId(SessionId session, String value) {
    try {
      return new ApprovalId(value);
    } catch (RuntimeException e) {
      throw new ApprovalRefusedException(
          ApprovalRefusedException.Why.APPROVAL_NOT_FOUND,
          "approval not found: "
              + value.length()
              + " characters that are no approval id of session "
              + session);
    }
  }

  /** The Approval JSON of the API (docs/api.md); absent values are left out. */
  static Map<String, Object> json(Approval a) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("id", a.id().value());
    body.put("sessionId", a.session().value());
    body.put("tool", a.tool());
    body.put("argumentsDigest", a.argumentsDigest());
    body.put("arguments", a.argumentsPreview());
    body.put("requester", a.requester());
    body.put("state", a.state().wireName());
    a.reason().ifPresent(r -> body.put("reason", r));
    a.decidedBy().ifPresent(d -> body.put("decidedBy", d));
    body.put("createdAt", a.createdAt().toString());
    body.put("expiresAt", a.expiresAt().toString());
    a.decidedAt().ifPresent(t -> body.put("decidedAt", t.toString()));
    return body;
  }

  private void send(Context ctx, Object body) {
    ctx.contentType("application/json").result(json.writeValueAsString(body));
  }
}
