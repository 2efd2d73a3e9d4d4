package dev.berth.server.api;

import dev.berth.core.approval.Approval;
import dev.berth.core.approval.ApprovalId;
import dev.berth.core.approval.RequestApproval;
import dev.berth.core.error.ApprovalRefusedException;
import dev.berth.core.error.ForbiddenException;
import dev.berth.core.error.InvalidValueException;
import dev.berth.core.session.Session;
import dev.berth.core.store.SessionStore;
import dev.berth.server.session.ApprovalUseCases;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The approval gateway protocol, served for the sessions' credential proxies at {@code
 * /gateway/api/requests} (docs/agents.md, "Approval gate"). Not under {@code /api/v1}, and no
 * bearer token: a proxy presents its session runtime's gateway key in {@code x-api-key}, checked
 * against the runtime the session has now ({@link dev.berth.core.approval.GatewayKeys}), so a key
 * of another session, or of an incarnation that is gone, is refused. A refused key learns nothing:
 * the answer is the same whether or not the session or the approval exists. {@code DELETE} of a
 * request is the proxy withdrawing it: the call no longer waits.
 */
final class GatewayRoutes {

  static final String REQUESTS = "/gateway/api/requests";
  static final String KEY_HEADER = "x-api-key";
  private static final Pattern DIGEST = Pattern.compile("sha256:[0-9a-f]{64}");
  private static final int MAX_TOOL_CHARS = 256;

  private final ApprovalUseCases approvals;
  private final SessionStore store;
  private final ApiProblems problems;
  private final JsonMapper json;

  /** The largest request a proxy sends: a tool's name, a digest and a 4 KiB preview, escaped. */
  static final int MAX_BODY_BYTES = 64 * 1024;

  GatewayRoutes(
      ApprovalUseCases approvals, SessionStore store, ApiProblems problems, JsonMapper json) {
    this.approvals = approvals;
    this.store = store;
    this.problems = problems;
    this.json = json;
  }

  void register(RoutesConfig routes) {
    routes.post(REQUESTS, this::request);
    routes.get(REQUESTS + "/{approvalId}", this::status);
    routes.delete(REQUESTS + "/{approvalId}", this::withdraw);
  }

  private void request(Context ctx) {
    Optional<String> key = key(ctx);
    if (key.isEmpty()) {
      unauthenticated(ctx);
      return;
    }
    // Checked before the key is: keep what an unauthenticated caller can make the server read
    // small (a request's preview is at most 4 KiB).
    byte[] raw = Bodies.bytes(ctx, MAX_BODY_BYTES);
    JsonNode body = parse(raw);
    ApprovalId id = new ApprovalId(text(body, "id"));
    requireKeyOf(id, key.get());
    RequestApproval.Requested requested =
        approvals
            .request()
            .request(
                new RequestApproval.Call(
                    id,
                    tool(body),
                    digest(body),
                    preview(body.get("arguments")),
                    Optional.ofNullable(body.get("userId"))
                        .filter(JsonNode::isString)
                        .map(JsonNode::asString),
                    hold(body)));
    ctx.status(requested.created() ? 201 : 200);
    send(ctx, status(requested.approval()));
  }

  private void status(Context ctx) {
    Optional<String> key = key(ctx);
    if (key.isEmpty()) {
      unauthenticated(ctx);
      return;
    }
    ApprovalId id = pathId(ctx);
    requireKeyOf(id, key.get());
    Approval approval =
        approvals
            .read()
            .find(id)
            .orElseThrow(
                () ->
                    new ApprovalRefusedException(
                        ApprovalRefusedException.Why.APPROVAL_NOT_FOUND,
                        "approval not found: " + id));
    send(ctx, status(approval));
  }

  /**
   * The proxy gives up the call it held (its client went away, or its deadline passed): a pending
   * approval ends cancelled; the answer is the status it has then, a decision that came first
   * included, so the proxy (still holding the call) can honour it.
   */
  private void withdraw(Context ctx) {
    Optional<String> key = key(ctx);
    if (key.isEmpty()) {
      unauthenticated(ctx);
      return;
    }
    ApprovalId id = pathId(ctx);
    requireKeyOf(id, key.get());
    String why = Optional.ofNullable(ctx.queryParam("reason")).orElse("");
    send(ctx, status(approvals.withdraw().withdraw(id, why)));
  }

  private static ApprovalId pathId(Context ctx) {
    try {
      return new ApprovalId(ctx.pathParam("approvalId"));
    } catch (InvalidValueException e) {
      throw new ForbiddenException("this x-api-key", "ask about that id", "it is no approval id");
    }
  }

  /**
   * {@code holdSeconds}, how long the proxy holds the call from now, when it says: the approval
   * expires a grace after that, so the server never decides a call its proxy stopped waiting for.
   */
  private static Optional<Duration> hold(JsonNode body) {
    JsonNode hold = body.get("holdSeconds");
    if (hold == null || hold.isNull()) {
      return Optional.empty();
    }
    if (!hold.isIntegralNumber() || !hold.canConvertToLong() || hold.asLong() < 1) {
      throw new InvalidValueException(
          "invalid input: field \"holdSeconds\" must be a whole number of seconds, at least 1,"
              + " was "
              + (hold.toString().length() > 40 ? hold.toString().substring(0, 40) + "…" : hold)
              + "; leave it out to be held for the server's timeout");
    }
    return Optional.of(Duration.ofSeconds(hold.asLong()));
  }

  private Optional<String> key(Context ctx) {
    return Optional.ofNullable(ctx.header(KEY_HEADER)).filter(k -> !k.isBlank());
  }

  private void unauthenticated(Context ctx) {
    problems.write(
        ctx,
        new ApiProblems.Kind(401, "UNAUTHENTICATED"),
        "missing approval gateway key: send 'x-api-key: <key>' with the key the session's proxy"
            + " was given");
  }

  /** The key must be the gateway key of the runtime the id's session has now. */
  private void requireKeyOf(ApprovalId id, String key) {
    boolean valid =
        store
            .get(id.session())
            // A session being deleted keeps its runtime until the removal: its proxy, still
            // polling, learns that its approvals were cancelled.
            .flatMap(Session::runtime)
            .map(runtime -> approvals.keys().verifies(runtime.name(), key))
            .orElse(false);
    if (!valid) {
      throw new ForbiddenException(
          "this x-api-key",
          "ask about approval " + id,
          "it is not the approval gateway key of that session's runtime");
    }
  }

  private JsonNode parse(byte[] raw) {
    try {
      JsonNode body = json.readTree(raw);
      if (body == null || !body.isObject()) {
        throw new InvalidValueException("invalid input: the body must be one JSON object");
      }
      return body;
    } catch (JacksonException e) {
      throw new InvalidValueException(
          "invalid input: the body is not JSON: " + e.getOriginalMessage());
    }
  }

  private static String text(JsonNode body, String field) {
    JsonNode value = body.get(field);
    if (value == null || !value.isString()) {
      throw new InvalidValueException("invalid input: field \"" + field + "\" must be a string");
    }
    return value.asString();
  }

  private static String tool(JsonNode body) {
    String tool = text(body, "tool");
    if (tool.isBlank() || tool.length() > MAX_TOOL_CHARS) {
      throw new InvalidValueException(
          "invalid input: field \"tool\" must be 1 to " + MAX_TOOL_CHARS + " characters");
    }
    return tool;
  }

  private static String digest(JsonNode body) {
    String digest = text(body, "argumentsDigest");
    if (!DIGEST.matcher(digest).matches()) {
      throw new InvalidValueException(
          "invalid input: field \"argumentsDigest\" must be sha256:<64 lowercase hex>");
    }
    return digest;
  }

  /** A string argument as it is, any other JSON as its text; the record cuts it to 4 KiB. */
  private String preview(JsonNode arguments) {
    if (arguments == null) {
      return "";
    }
    return arguments.isString() ? arguments.asString() : json.writeValueAsString(arguments);
  }

  private static Map<String, Object> status(Approval approval) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("id", approval.id().value());
    body.put("status", approval.state().name());
    approval.reason().ifPresent(r -> body.put("reason", r));
    return body;
  }

  private void send(Context ctx, Object body) {
    ctx.contentType("application/json").result(json.writeValueAsString(body));
  }
}
