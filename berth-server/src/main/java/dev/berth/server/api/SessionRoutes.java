package dev.berth.server.api;

import dev.berth.core.access.CreateSession;
import dev.berth.core.access.DeleteSession;
import dev.berth.core.access.ListSessions;
import dev.berth.core.access.MakeActive;
import dev.berth.core.access.RecoverSession;
import dev.berth.core.access.Scope;
import dev.berth.core.access.SessionData;
import dev.berth.core.agent.ByteStream;
import dev.berth.core.error.NotFoundException;
import dev.berth.core.session.PublicState;
import dev.berth.core.session.Session;
import dev.berth.core.session.SessionId;
import dev.berth.core.session.TenantId;
import dev.berth.core.store.Page;
import dev.berth.server.api.body.CreateSessionBody;
import dev.berth.server.api.body.PluginRefreshBody;
import dev.berth.server.api.body.ReadBody;
import dev.berth.server.api.body.RecoverBody;
import dev.berth.server.api.body.SnapshotBody;
import dev.berth.server.api.body.SwitchBody;
import dev.berth.server.api.body.WriteBody;
import dev.berth.server.session.UseCases;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import tools.jackson.databind.json.JsonMapper;

/** Sessions: create, list, get, delete, and the "make active, then serve" read/write/switch. */
final class SessionRoutes {

  static final String SESSIONS = "/api/v1/sessions";
  static final String SESSION = SESSIONS + "/{id}";

  private final UseCases sessions;
  private final Bodies bodies;
  private final JsonMapper json;

  SessionRoutes(UseCases sessions, Bodies bodies, JsonMapper json) {
    this.sessions = sessions;
    this.bodies = bodies;
    this.json = json;
  }

  void register(RoutesConfig routes) {
    routes.post(SESSIONS, this::create);
    routes.get(SESSIONS, this::list);
    routes.get(SESSION, this::get);
    routes.delete(SESSION, this::delete);
    routes.post(SESSION + "/read", this::read);
    routes.post(SESSION + "/write", this::write);
    routes.post(SESSION + "/switch", this::switchTo);
    routes.post(SESSION + "/snapshot", this::snapshot);
    routes.post(SESSION + "/recover", this::recover);
    routes.post(SESSION + "/plugins/refresh", this::refreshPlugins);
  }

  /**
   * An agent session takes its plugins anew from the marketplace (AC-J7), keeping its conversation;
   * an access, as a write is. Nothing refreshes by itself.
   */
  private void refreshPlugins(Context ctx) {
    bodies.read(ctx, PluginRefreshBody.class, true);
    Caller caller = Caller.of(ctx);
    SessionData.Served<List<dev.berth.core.session.PluginName>> refreshed =
        sessions.data().refreshPlugins(caller.scope(), id(ctx), caller.actor());
    Map<String, Object> answer = new LinkedHashMap<>();
    answer.put("session", session(refreshed.activation().session()));
    answer.put("path", refreshed.activation().path());
    answer.put(
        "plugins",
        refreshed.result().stream().map(dev.berth.core.session.PluginName::value).toList());
    send(ctx, answer);
  }

  private void recover(Context ctx) {
    bodies.read(ctx, RecoverBody.class, true);
    Caller caller = Caller.of(ctx);
    Session recovered = sessions.recover().recover(caller.scope(), id(ctx), caller.actor());
    ctx.status(201);
    ctx.header("Location", SESSIONS + "/" + recovered.id().value());
    send(ctx, session(recovered));
  }

  private void create(Context ctx) {
    CreateSessionBody body = bodies.read(ctx, CreateSessionBody.class, false);
    Caller caller = Caller.of(ctx);
    boolean wait = !"false".equals(ctx.queryParam("wait"));
    CreateSession.Created created =
        sessions
            .create()
            .create(
                caller.scope(),
                new CreateSession.Request(
                    body.name(),
                    body.workloadType(),
                    body.model(),
                    body.plugins().orElse(List.of()),
                    body.tenant().map(TenantId::new),
                    caller.actor(),
                    wait));
    ctx.status(created.active() ? 201 : 202);
    ctx.header("Location", SESSIONS + "/" + created.session().id().value());
    send(ctx, session(created.session()));
  }

  /**
   * {@code GET /sessions}: every session when no {@code limit} is given (the original's contract),
   * pages with {@code nextPageToken} when it is; {@code state}, {@code tenant} (admin) and {@code
   * deleted=true} narrow it.
   */
  private void list(Context ctx) {
    Caller caller = Caller.of(ctx);
    String limitParam = ctx.queryParam("limit");
    java.util.OptionalInt limit =
        limitParam == null || limitParam.isEmpty()
            ? java.util.OptionalInt.empty()
            : java.util.OptionalInt.of(intParam(ctx, "limit", 100, 1, 1000));
    boolean deleted = booleanParam(ctx, "deleted");
    Page<Session> page =
        sessions
            .list()
            .list(
                caller.scope(),
                new ListSessions.Listing(
                    Optional.ofNullable(ctx.queryParam("tenant")).map(TenantId::new),
                    states(ctx.queryParam("state")),
                    deleted,
                    limit,
                    Optional.ofNullable(ctx.queryParam("pageToken"))));
    Map<String, Object> body = new LinkedHashMap<>();
    body.put(
        "sessions",
        page.items().stream()
            .map(s -> deleted ? deletedSession(caller.scope(), s) : session(s))
            .toList());
    page.nextPageToken().ifPresent(t -> body.put("nextPageToken", t));
    send(ctx, body);
  }

  /**
   * A deleted session as {@code deleted=true} lists it: when, whether it can come back, and the
   * session a recovery already made of it.
   */
  private Map<String, Object> deletedSession(Scope scope, Session s) {
    Map<String, Object> body = session(s);
    s.deletedAt().ifPresent(at -> body.put("deletedAt", at.toString()));
    Optional<java.time.Instant> until = sessions.lookup().recoverableUntil(s);
    body.put("recoverable", until.isPresent());
    until.ifPresent(u -> body.put("recoverableUntil", u.toString()));
    recoveredAs(scope, s).ifPresent(heir -> body.put("recoveredAs", heir.value()));
    return body;
  }

  /**
   * The session a recovery made of {@code deleted}, deleted since or not. Its id derives from the
   * deleted one's, and a recovery refuses to run twice exactly when that id is taken, so the same
   * look-up answers both; the heir keeps the deleted session's tenant, so the caller's scope sees
   * it.
   */
  private Optional<SessionId> recoveredAs(Scope scope, Session deleted) {
    SessionId heir = RecoverSession.heirOf(deleted.id());
    try {
      sessions.lookup().getIncludingDeleted(scope, heir);
      return Optional.of(heir);
    } catch (NotFoundException e) {
      return Optional.empty();
    }
  }

  private static java.util.Set<PublicState> states(String param) {
    if (param == null || param.isBlank()) {
      return java.util.Set.of();
    }
    java.util.Set<PublicState> states = java.util.EnumSet.noneOf(PublicState.class);
    // Deleted sessions are asked for with deleted=true; a state filter narrows either listing.
    java.util.List<PublicState> filterable =
        java.util.Arrays.stream(PublicState.values())
            .filter(p -> p != PublicState.DELETED)
            .toList();
    for (String name : param.split(",")) {
      states.add(
          filterable.stream()
              .filter(p -> p.wireName().equals(name.strip()))
              .findFirst()
              .orElseThrow(
                  () ->
                      new dev.berth.core.error.InvalidValueException(
                          "invalid input: state must be one or more (comma-separated) of "
                              + filterable.stream().map(PublicState::wireName).toList()
                              + ", was "
                              + param
                              + (name.strip().equals(PublicState.DELETED.wireName())
                                  ? "; deleted sessions are listed with deleted=true"
                                  : ""))));
    }
    return states;
  }

  private static boolean booleanParam(Context ctx, String name) {
    String value = ctx.queryParam(name);
    if (value == null || value.isEmpty() || value.equals("false")) {
      return false;
    }
    if (value.equals("true")) {
      return true;
    }
    throw new dev.berth.core.error.InvalidValueException(
        "invalid input: " + name + " must be true or false, was " + value);
  }

  private void get(Context ctx) {
    send(ctx, session(sessions.lookup().get(Caller.of(ctx).scope(), id(ctx))));
  }

  private void delete(Context ctx) {
    Caller caller = Caller.of(ctx);
    DeleteSession.Deleted deleted =
        sessions.delete().delete(caller.scope(), id(ctx), ifMatch(ctx), caller.actor());
    if (deleted.terminated()) {
      ctx.status(204);
    } else {
      ctx.status(202);
      Map<String, Object> body = session(deleted.session());
      deleted
          .operation()
          .ifPresent(
              op -> {
                body.put("operation", op.value());
                ctx.header("Location", "/api/v1/operations/" + op.value());
              });
      send(ctx, body);
    }
  }

  /**
   * Passes the agent's capped answer through as it arrives ({@link ReadRelay}). Once the first
   * bytes went out, a broken copy can only cut the connection: the client sees a truncated answer
   * rather than a problem.
   */
  private void read(Context ctx) throws java.io.IOException {
    ReadBody body = bodies.read(ctx, ReadBody.class, true);
    Caller caller = Caller.of(ctx);
    SessionData.Served<ByteStream> result =
        sessions.data().read(caller.scope(), id(ctx), body.offset(), caller.actor());
    try (ByteStream output = result.result()) {
      Session served = result.activation().session();
      Map<String, Object> session = session(served);
      ctx.status(200);
      ctx.contentType("application/json");
      try {
        ReadRelay.write(
            json,
            session,
            result.activation().path(),
            served.runtime().map(r -> r.name()).orElse("the session's agent"),
            output.body(),
            ctx.res().getOutputStream());
      } catch (java.io.IOException clientOrAgentGone) {
        // The answer has begun: a problem appended to it would only make it look whole.
        org.eclipse.jetty.ee10.servlet.ServletContextRequest.getServletContextRequest(ctx.req())
            .getConnectionMetaData()
            .getConnection()
            .getEndPoint()
            .close(clientOrAgentGone);
      }
    }
  }

  private void write(Context ctx) {
    WriteBody body = bodies.read(ctx, WriteBody.class, true);
    Caller caller = Caller.of(ctx);
    byte[] payload = body.payload().getBytes(StandardCharsets.UTF_8);
    SessionData.Written written =
        sessions
            .data()
            .write(caller.scope(), id(ctx), payload, body.permissionMode(), caller.actor());
    MakeActive.Activation result = written.activation();
    if (written.prompt().isEmpty()) {
      send(ctx, Map.of("session", session(result.session()), "path", result.path()));
      return;
    }
    // An agent session's write is a prompt, answered on acceptance with its execution.
    Map<String, Object> answer = new java.util.LinkedHashMap<>();
    answer.put("session", session(result.session()));
    answer.put("path", result.path());
    answer.put("status", "queued");
    answer.put("executionId", written.prompt().get().id().value());
    send(ctx, answer);
  }

  private void switchTo(Context ctx) {
    bodies.read(ctx, SwitchBody.class, true);
    Caller caller = Caller.of(ctx);
    send(
        ctx,
        session(
            sessions.activation().switchTo(caller.scope(), id(ctx), ifMatch(ctx), caller.actor())));
  }

  private void snapshot(Context ctx) {
    bodies.read(ctx, SnapshotBody.class, true);
    Caller caller = Caller.of(ctx);
    send(
        ctx,
        session(
            sessions.snapshot().snapshot(caller.scope(), id(ctx), ifMatch(ctx), caller.actor())));
  }

  private Map<String, Object> session(Session s) {
    return ApiJson.session(
        s,
        sessions.clock().instant(),
        sessions.settings().idleAfter(),
        sessions.restores().of(s.id()),
        sessions.approvals().read().countPending(s.id()));
  }

  private void send(Context ctx, Object body) {
    ctx.contentType("application/json").result(json.writeValueAsString(body));
  }

  /** A session id that is not one answers like a missing session. */
  static SessionId id(Context ctx) {
    return id(ctx.pathParam("id"));
  }

  static SessionId id(String value) {
    try {
      return new SessionId(value);
    } catch (RuntimeException e) {
      throw new dev.berth.core.error.NotFoundException("session");
    }
  }

  /** {@code If-Match: "7"} (quotes optional); anything else is a bad request. */
  static OptionalLong ifMatch(Context ctx) {
    String header = ctx.header("If-Match");
    if (header == null || header.isBlank()) {
      return OptionalLong.empty();
    }
    String value = header.strip();
    if (value.startsWith("\"") && value.endsWith("\"") && value.length() >= 2) {
      value = value.substring(1, value.length() - 1);
    }
    try {
      return OptionalLong.of(Long.parseLong(value));
    } catch (NumberFormatException e) {
      throw new dev.berth.core.error.InvalidValueException(
          "invalid input: If-Match must be the session's intent version in quotes, e.g. \"3\";"
              + " was "
              + header);
    }
  }

  static int intParam(Context ctx, String name, int fallback, int min, int max) {
    String value = ctx.queryParam(name);
    if (value == null || value.isEmpty()) {
      return fallback;
    }
    try {
      int n = Integer.parseInt(value);
      if (n >= min && n <= max) {
        return n;
      }
    } catch (NumberFormatException e) {
      // refused below
    }
    throw new dev.berth.core.error.InvalidValueException(
        "invalid input: "
            + name
            + " must be an integer from "
            + min
            + " to "
            + max
            + ", was "
            + value);
  }
}
