package dev.berth.client;

import dev.berth.core.approval.ApprovalId;
import dev.berth.core.execution.ExecutionId;
import dev.berth.core.operation.OperationId;
import dev.berth.core.session.SessionId;
import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import tools.jackson.databind.JsonNode;

/**
 * A client of one Berth server's public API ({@code /api/v1}, {@code docs/api.md}) with one bearer
 * token: every route, the output stream over SSE ({@link #follow}) and the terminal over WebSocket
 * ({@link #attach}).
 *
 * <p>Every method may throw {@link BerthApiException} (the server refused: status, reason, message,
 * session), {@link BerthUnreachableException} (no answer: {@code cannot reach Berth at <url>: …};
 * whether a request that was sent took effect is unknown) or {@link BerthProtocolException} (the
 * answer is not what the route promises). Requests that wait on the server's lifecycle (create,
 * delete, switch, snapshot, read and write, which may restore a snapshot first) get the longer
 * {@link Builder#lifecycleTimeout}; the others the shorter {@link Builder#timeout}.
 *
 * <p>Thread-safe: share one client. {@link #close()} releases its HTTP client; follows and
 * terminals opened from it should be closed first.
 */
public final class BerthClient implements AutoCloseable {

  /** The address of a server started with its defaults. */
  public static final String DEFAULT_URL = "http://127.0.0.1:8080";

  private static final Map<String, String> NO_HEADERS = Map.of();

  private final HttpApi api;
  private final HttpClient http;
  private final Duration timeout;
  private final Duration lifecycleTimeout;

  private BerthClient(Builder builder) {
    this.http =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(builder.connectTimeout)
            .followRedirects(HttpClient.Redirect.NEVER)
            .build();
    this.api = new HttpApi(builder.url, builder.token, http);
    this.timeout = builder.timeout;
    this.lifecycleTimeout = builder.lifecycleTimeout;
  }

  /** A client of {@code url} with {@code token} and the default timeouts. */
  public static BerthClient create(String url, String token) {
    return builder(url, token).build();
  }

  /**
   * Starts building a client.
   *
   * @param url the server's base address, as {@code http://127.0.0.1:8080} (a path prefix is kept,
   *     for a server behind a proxy); {@code /api/v1} is added to it
   * @throws IllegalArgumentException when {@code url} is not an absolute http or https URL
   */
  public static Builder builder(String url, String token) {
    return new Builder(normalize(url), Objects.requireNonNull(token, "token is required"));
  }

  /**
   * The base URL as the client uses it: no trailing slash, no query.
   *
   * @throws IllegalArgumentException when {@code url} is not an absolute http or https URL
   */
  public static URI normalize(String url) {
    Objects.requireNonNull(url, "url is required");
    URI uri;
    try {
      uri = URI.create(url.strip());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("'" + url + "' is not a URL: " + e.getMessage(), e);
    }
    String scheme = uri.getScheme();
    if (scheme == null
        || !(scheme.equalsIgnoreCase("http") || scheme.equalsIgnoreCase("https"))
        || uri.getHost() == null) {
      throw new IllegalArgumentException(
          "'" + url + "' is not a Berth URL; write it as http://HOST:PORT, e.g. " + DEFAULT_URL);
    }
    String path = uri.getRawPath() == null ? "" : uri.getRawPath();
    while (path.endsWith("/")) {
      path = path.substring(0, path.length() - 1);
    }
    return URI.create(
        scheme.toLowerCase(java.util.Locale.ROOT) + "://" + uri.getRawAuthority() + path);
  }

  /** The server's base URL. */
  public URI url() {
    return api.base();
  }

  /** {@code GET /config}: the workload types and models this server offers. */
  public BerthConfig config() {
    return Json.read(get("/config", "the config"), BerthConfig.class, "config");
  }

  /** Creates a session called {@code name} of the server's default type and waits until active. */
  public SessionView createSession(String name) {
    return createSession(NewSession.named(name));
  }

  /**
   * {@code POST /sessions}: creates a session. When {@link NewSession#waitForActive()} the server
   * answers once it is {@code active} (201), or with it still {@code provisioning} after 120 s
   * (202); otherwise at once (202).
   *
   * @throws BerthApiException 503 {@code RUNTIME_UNAVAILABLE} when provisioning failed, 403 {@code
   *     WORKLOAD_NOT_ALLOWED}, 429 {@code QUOTA_EXCEEDED}, 400 {@code INVALID_INPUT}
   */
  public SessionView createSession(NewSession request) {
    String path = "/sessions" + (request.waitForActive() ? "" : "?wait=false");
    HttpApi.Answer answer =
        api.call(
            "POST",
            path,
            Optional.of(request.body()),
            NO_HEADERS,
            lifecycleTimeout,
            "creating session '" + request.name() + "'");
    return session(body(answer, "the created session"));
  }

  /** {@code GET /sessions}: one page. */
  public SessionPage listSessions(SessionQuery query) {
    List<String> params = new ArrayList<>();
    query.tenant().ifPresent(t -> params.add(HttpApi.query("tenant", t)));
    query.limit().ifPresent(l -> params.add("limit=" + l));
    query.pageToken().ifPresent(t -> params.add(HttpApi.query("pageToken", t)));
    if (!query.states().isEmpty()) {
      params.add(HttpApi.query("state", String.join(",", query.states())));
    }
    if (query.deleted()) {
      params.add("deleted=true");
    }
    String path = "/sessions" + (params.isEmpty() ? "" : "?" + String.join("&", params));
    JsonNode page = get(path, "the session list");
    List<SessionView> sessions = new ArrayList<>();
    for (JsonNode item : page.path("sessions")) {
      sessions.add(session(item));
    }
    JsonNode next = page.path("nextPageToken");
    return new SessionPage(
        sessions,
        next.isString() && !next.asString().isEmpty()
            ? Optional.of(next.asString())
            : Optional.empty(),
        page);
  }

  /**
   * Every session {@code query} selects, across pages: the next page is read when the iterator
   * reaches the end of the current one. Failures surface from {@code hasNext}.
   */
  public Iterator<SessionView> iterateSessions(SessionQuery query) {
    return new Iterator<>() {
      private SessionPage page = listSessions(query);
      private int index;

      @Override
      public boolean hasNext() {
        while (index == page.sessions().size() && page.nextPageToken().isPresent()) {
          page = listSessions(query.pageToken(page.nextPageToken().get()));
          index = 0;
        }
        return index < page.sessions().size();
      }

      @Override
      public SessionView next() {
        if (!hasNext()) {
          throw new NoSuchElementException("no more sessions");
        }
        return page.sessions().get(index++);
      }
    };
  }

  /**
   * {@code GET /sessions/{id}}.
   *
   * @throws BerthApiException 404 when there is no such session (or it is another tenant's)
   */
  public SessionView getSession(SessionId id) {
    return session(get("/sessions/" + id, "session " + id));
  }

  /**
   * Deletes a session whatever its intent version; see {@link #deleteSession(SessionId,
   * OptionalLong)}.
   */
  public Deletion deleteSession(SessionId id) {
    return deleteSession(id, OptionalLong.empty());
  }

  /**
   * {@code DELETE /sessions/{id}}: terminates the session; the server waits up to 60 s.
   *
   * @param ifMatch the intent version the session must still be at ({@code If-Match})
   * @throws BerthApiException 412 {@code PRECONDITION_FAILED} when it moved past {@code ifMatch}
   */
  public Deletion deleteSession(SessionId id, OptionalLong ifMatch) {
    HttpApi.Answer answer =
        api.call(
            "DELETE",
            "/sessions/" + id,
            Optional.empty(),
            ifMatch(ifMatch),
            lifecycleTimeout,
            "deleting session " + id);
    if (answer.status() == 204 || answer.json().isEmpty()) {
      return new Deletion(id, true, Optional.empty());
    }
    SessionView session = session(answer.json().get());
    return new Deletion(
        id, session.phase().filter("TERMINATED"::equals).isPresent(), Optional.of(session));
  }

  /**
   * {@code POST /sessions/{id}/read}: the output from {@code offset} (at most the server's limit
   * per read; read again from {@code nextOffset} for more). Makes the session active first: touches
   * an idle one, restores a snapshot.
   *
   * @throws BerthProtocolException when the payload does not span its offsets
   */
  public ReadResult read(SessionId id, long offset) {
    if (offset < 0) {
      throw new IllegalArgumentException("an output offset is >= 0, was " + offset);
    }
    JsonNode body =
        lifecycle(
            "POST",
            "/sessions/" + id + "/read",
            Map.of("offset", offset),
            OptionalLong.empty(),
            "reading session " + id);
    return new ReadResult(
            id,
            servedSession(body),
            body.path("path").asString(""),
            body.path("payload").asString(""),
            body.path("payloadBase64").asString(""),
            body.path("offset").asLong(offset),
            body.path("nextOffset").asLong(offset))
        .validated();
  }

  /**
   * {@code POST /sessions/{id}/write}: writes {@code payload} to the session's terminal as typed
   * (add {@code "\n"} to run a line). Makes the session active first.
   */
  public WriteResult write(SessionId id, String payload) {
    JsonNode body =
        lifecycle(
            "POST",
            "/sessions/" + id + "/write",
            Map.of("payload", payload),
            OptionalLong.empty(),
            "writing to session " + id);
    return new WriteResult(id, servedSession(body), body.path("path").asString(""));
  }

  /**
   * {@code POST /sessions/{id}/write} on an agent session: queues {@code prompt} (makes the session
   * active first, restoring a snapshot) and answers on acceptance with its execution.
   *
   * @param permissionMode this turn's permission mode ({@code acceptEdits}, …); the default when
   *     absent
   * @throws BerthApiException 413 {@code PROMPT_TOO_LARGE}, 429 {@code PROMPT_QUEUE_FULL}, 507
   *     {@code OUTPUT_FULL}, 400 for a shell session given a permission mode
   */
  public Prompted prompt(SessionId id, String prompt, Optional<String> permissionMode) {
    Map<String, Object> request = new java.util.LinkedHashMap<>();
    request.put("payload", prompt);
    permissionMode.ifPresent(mode -> request.put("permissionMode", mode));
    JsonNode body =
        lifecycle(
            "POST",
            "/sessions/" + id + "/write",
            request,
            OptionalLong.empty(),
            "prompting session " + id);
    String execution = body.path("executionId").asString("");
    if (execution.isEmpty()) {
      throw new BerthProtocolException(
          "session " + id + " took the write as terminal input: it is not an agent session");
    }
    return new Prompted(
        id, servedSession(body), body.path("path").asString(""), new ExecutionId(execution));
  }

  /**
   * {@code POST /sessions/{id}/plugins/refresh}: the agent session takes its plugins anew from the
   * marketplace, between prompts, keeping its conversation (makes the session active first,
   * restoring a snapshot). Nothing refreshes by itself.
   *
   * @return the names of the plugins refreshed; none for a session created without plugins
   * @throws BerthApiException 409 {@code PROMPTS_RUNNING} while a prompt runs or waits, 409 {@code
   *     PLUGIN_UNAVAILABLE} when a plugin left the marketplace, 409 {@code PLUGINS_FOLDER_UNSAFE}
   *     when the session made its plugin folder a link, 409 {@code SUSPENDING} while it is being
   *     snapshotted, 400 for a shell session; nothing is changed then
   */
  public List<String> refreshPlugins(SessionId id) {
    JsonNode body =
        lifecycle(
            "POST",
            "/sessions/" + id + "/plugins/refresh",
            Map.of(),
            OptionalLong.empty(),
            "refreshing the plugins of session " + id);
    List<String> names = new ArrayList<>();
    for (JsonNode plugin : body.path("plugins")) {
      names.add(plugin.asString());
    }
    return List.copyOf(names);
  }

  /** {@code GET /sessions/{id}/transcript}: up to {@code limit} entries after {@code cursor}. */
  public List<TranscriptEntry> transcript(SessionId id, long cursor, int limit) {
    List<TranscriptEntry> entries = new ArrayList<>();
    JsonNode page =
        get(
            "/sessions/" + id + "/transcript?cursor=" + cursor + "&limit=" + limit,
            "the transcript of " + id);
    for (JsonNode entry : page.path("entries")) {
      entries.add(TranscriptEntry.of(entry));
    }
    return List.copyOf(entries);
  }

  /**
   * {@code GET /sessions/{id}/approvals}: the session's approvals, newest first; only the pending
   * ones with {@code pendingOnly}. Passive: never an access.
   */
  public List<Approval> approvals(SessionId id, boolean pendingOnly) {
    List<Approval> approvals = new ArrayList<>();
    JsonNode page =
        get(
            "/sessions/" + id + "/approvals" + (pendingOnly ? "?state=pending" : ""),
            "the approvals of " + id);
    for (JsonNode item : page.path("items")) {
      approvals.add(Json.read(item, Approval.class, "approval"));
    }
    return List.copyOf(approvals);
  }

  /**
   * {@code POST /sessions/{id}/approvals/{approvalId}}: approves or rejects a pending tool call;
   * the proxy holding it releases or drops it within a second or so.
   *
   * @param reason why, recorded with the decision (and shown to the agent on a rejection)
   * @throws BerthApiException 409 {@code APPROVAL_DECIDED} when it was decided already, 409 {@code
   *     APPROVAL_EXPIRED} when it expired first, 404 {@code APPROVAL_NOT_FOUND}
   */
  public Approval decideApproval(
      SessionId id, ApprovalId approvalId, Approval.Decision decision, Optional<String> reason) {
    Map<String, Object> request = new LinkedHashMap<>();
    request.put("decision", decision.wireName());
    reason.ifPresent(r -> request.put("reason", r));
    HttpApi.Answer answer =
        api.call(
            "POST",
            "/sessions/" + id + "/approvals/" + approvalId,
            Optional.of(request),
            NO_HEADERS,
            timeout,
            "deciding approval " + approvalId + " of session " + id);
    return Json.read(body(answer, "the decided approval"), Approval.class, "approval");
  }

  /** {@code POST /sessions/{id}/switch}: makes the session active (restores a snapshot). */
  public SessionView switchSession(SessionId id, OptionalLong ifMatch) {
    return session(
        lifecycle(
            "POST", "/sessions/" + id + "/switch", Map.of(), ifMatch, "switching session " + id));
  }

  /**
   * {@code POST /sessions/{id}/snapshot}: archives the session and reclaims its runtime.
   *
   * @throws BerthApiException 503 {@code SNAPSHOT_UNAVAILABLE} while snapshots of its type are not
   *     enabled (the runtime is kept)
   */
  public SessionView snapshot(SessionId id, OptionalLong ifMatch) {
    return session(
        lifecycle(
            "POST",
            "/sessions/" + id + "/snapshot",
            Map.of(),
            ifMatch,
            "snapshotting session " + id));
  }

  /**
   * Follows a session's output from {@code offset} over SSE ({@code GET /sessions/{id}/stream}),
   * passively (the stream never restores or touches the session), on a thread of its own; see
   * {@link OutputFollow} for the reconnection and reset rules.
   */
  public OutputFollow follow(SessionId id, long offset, OutputListener listener) {
    return OutputFollow.start(api, new SessionStreamTarget(this, id), offset, listener);
  }

  /**
   * Opens the session's terminal ({@code GET /sessions/{id}/attach}, a WebSocket) with output from
   * {@code offset}. Input counts as access.
   *
   * @throws BerthApiException when the server refuses (404, 422 for a session without runtime)
   */
  public AttachConnection attach(SessionId id, long offset, AttachListener listener) {
    return AttachConnection.open(api, id, offset, listener, timeout);
  }

  /**
   * {@code POST /sessions/{id}/executions}: runs {@code command} (a shell command line) in the
   * session to completion.
   *
   * @param timeout the server cancels it after this long ({@code timedOut} in its answer)
   */
  public Execution startExecution(SessionId id, String command, Optional<Duration> timeout) {
    Map<String, Object> request = new LinkedHashMap<>();
    request.put("command", Objects.requireNonNull(command, "command is required"));
    timeout.ifPresent(t -> request.put("timeoutSeconds", Math.max(1, t.toSeconds())));
    HttpApi.Answer answer =
        api.call(
            "POST",
            "/sessions/" + id + "/executions",
            Optional.of(request),
            NO_HEADERS,
            lifecycleTimeout,
            "starting an execution in session " + id);
    return execution(body(answer, "the execution"));
  }

  /** {@code GET /sessions/{id}/executions}. */
  public List<Execution> executions(SessionId id) {
    List<Execution> executions = new ArrayList<>();
    for (JsonNode item :
        get("/sessions/" + id + "/executions", "executions of " + id).path("executions")) {
      executions.add(execution(item));
    }
    return List.copyOf(executions);
  }

  /** {@code GET /sessions/{id}/executions/{eid}}. */
  public Execution execution(SessionId id, ExecutionId execution) {
    return execution(get("/sessions/" + id + "/executions/" + execution, "execution " + execution));
  }

  /** {@code POST /sessions/{id}/executions/{eid}/cancel}: idempotent once it finished. */
  public Execution cancelExecution(SessionId id, ExecutionId execution) {
    HttpApi.Answer answer =
        api.call(
            "POST",
            "/sessions/" + id + "/executions/" + execution + "/cancel",
            Optional.empty(),
            NO_HEADERS,
            timeout,
            "cancelling execution " + execution);
    return execution(body(answer, "the cancelled execution"));
  }

  /**
   * Follows an execution's own output from {@code offset} over SSE ({@code GET
   * /sessions/{id}/executions/{eid}/output}) until the execution finished and all of it arrived
   * ({@link StreamEnd.Reason#FINISHED}).
   */
  public OutputFollow followExecution(
      SessionId id, ExecutionId execution, long offset, OutputListener listener) {
    return OutputFollow.start(
        api, new ExecutionStreamTarget(this, id, execution), offset, listener);
  }

  /** {@code GET /sessions/{id}/operations}: the operations that served the session's intents. */
  public List<Operation> operations(SessionId id) {
    List<Operation> operations = new ArrayList<>();
    for (JsonNode item :
        get("/sessions/" + id + "/operations", "operations of " + id).path("operations")) {
      operations.add(Json.read(item, Operation.class, "operation"));
    }
    return List.copyOf(operations);
  }

  /** {@code GET /operations/{opid}}. */
  public Operation operation(OperationId id) {
    return Json.read(get("/operations/" + id, "operation " + id), Operation.class, "operation");
  }

  /**
   * {@code POST /admin/tokens}: issues a tenant token (admin only).
   *
   * @throws BerthApiException 403 {@code FORBIDDEN} for a tenant token
   */
  public IssuedToken issueToken(TokenGrant grant) {
    HttpApi.Answer answer =
        api.call(
            "POST",
            "/admin/tokens",
            Optional.of(grant),
            NO_HEADERS,
            timeout,
            "issuing a token for tenant " + grant.tenant());
    return Json.read(body(answer, "the issued token"), IssuedToken.class, "issued token");
  }

  /** {@code GET /admin/tokens}: every tenant token, oldest first (admin only). */
  public List<TokenInfo> tokens() {
    List<TokenInfo> tokens = new ArrayList<>();
    for (JsonNode item : get("/admin/tokens", "the token list").path("tokens")) {
      tokens.add(Json.read(item, TokenInfo.class, "token"));
    }
    return List.copyOf(tokens);
  }

  /**
   * {@code DELETE /admin/tokens/{id}}: revokes a tenant token (admin only).
   *
   * @throws BerthApiException 404 {@code NOT_FOUND} when no token has that id
   */
  public void revokeToken(String id) {
    api.call(
        "DELETE",
        "/admin/tokens/" + java.net.URLEncoder.encode(id, java.nio.charset.StandardCharsets.UTF_8),
        Optional.empty(),
        NO_HEADERS,
        timeout,
        "revoking token " + id);
  }

  /**
   * {@code POST /sessions/{id}/recover}: a new session from a deleted one's last archive.
   *
   * @throws BerthApiException 409 {@code ALREADY_RECOVERED}, 410 {@code NOT_RECOVERABLE} or {@code
   *     RECOVERY_WINDOW_ENDED}
   */
  public SessionView recover(SessionId id) {
    return session(
        body(
            api.call(
                "POST",
                "/sessions/" + id + "/recover",
                Optional.of(Map.of()),
                NO_HEADERS,
                lifecycleTimeout,
                "recovering session " + id),
            "the recovered session"));
  }

  /**
   * {@code POST /sessions/{id}/keepalive}: holds an idle session from suspension for {@code for}
   * (the server's default when empty; capped at 4 h by the server).
   */
  public SessionView keepAlive(SessionId id, Optional<Duration> duration) {
    Map<String, Object> body = new java.util.LinkedHashMap<>();
    duration.ifPresent(d -> body.put("seconds", d.toSeconds()));
    return session(
        body(
            api.call(
                "POST",
                "/sessions/" + id + "/keepalive",
                Optional.of(body),
                NO_HEADERS,
                timeout,
                "keeping session " + id + " alive"),
            "the kept session"));
  }

  /**
   * {@code GET /sessions/{id}/idle}: what the idle policy decides about the session now, and why
   * (passive: not an access). The answer's members are in docs/api.md.
   */
  public JsonNode idle(SessionId id) {
    return get("/sessions/" + id + "/idle", "the idle decision of " + id);
  }

  /**
   * {@code GET /admin/audit}: one page of the audit log, oldest first, after sequence {@code
   * after}; {@code nextAfter} in the answer names the next page. With a session, its entries (a
   * deleted one's too; the admin reads any session's, a tenant its own sessions'); without, every
   * session's (the admin's alone).
   */
  public JsonNode audit(Optional<SessionId> id, long after, int limit, Optional<Instant> since) {
    return get(
        "/admin/audit?after="
            + after
            + "&limit="
            + limit
            + id.map(s -> "&session=" + s).orElse("")
            + since.map(at -> "&since=" + at).orElse(""),
        id.map(s -> "the audit log of " + s).orElse("the installation's audit log"));
  }

  /**
   * {@code PUT /admin/tenants/{tenant}}: sets the tenant's whole grant (admin only); {@code grant}
   * is the request body (workloadTypes, maxSessions, and optionally network, serviceAccounts,
   * approval, disconnect).
   *
   * @return the tenant as stored
   */
  public Tenant putTenant(String tenant, Map<String, ?> grant) {
    HttpApi.Answer answer =
        api.call(
            "PUT",
            "/admin/tenants/"
                + java.net.URLEncoder.encode(tenant, java.nio.charset.StandardCharsets.UTF_8),
            Optional.of(grant),
            NO_HEADERS,
            timeout,
            "setting the grant of tenant " + tenant);
    return Json.read(body(answer, "the tenant"), Tenant.class, "tenant");
  }

  /**
   * {@code GET /admin/recovery} (admin only): whether the control plane is in recovery mode (its
   * store older than what the runtimes or archives saw), and what it found. The answer's members
   * are in the API description ({@code Recovery}).
   */
  public JsonNode recovery() {
    return get("/admin/recovery", "recovery mode");
  }

  /** {@code POST /admin/recovery/approve} (admin only): ends recovery mode; audited. */
  public JsonNode approveRecovery() {
    return body(
        api.call(
            "POST",
            "/admin/recovery/approve",
            Optional.of(Map.of()),
            NO_HEADERS,
            timeout,
            "ending recovery mode"),
        "ending recovery mode");
  }

  /** {@code GET /admin/tenants} (admin only). */
  public List<Tenant> tenants() {
    List<Tenant> tenants = new ArrayList<>();
    for (JsonNode item : get("/admin/tenants", "the tenant list").path("tenants")) {
      tenants.add(Json.read(item, Tenant.class, "tenant"));
    }
    return List.copyOf(tenants);
  }

  /** Releases the HTTP client. */
  @Override
  public void close() {
    http.close();
  }

  private JsonNode get(String path, String what) {
    return body(api.call("GET", path, Optional.empty(), NO_HEADERS, timeout, what), what);
  }

  private JsonNode lifecycle(
      String method, String path, Map<String, ?> body, OptionalLong ifMatch, String what) {
    return body(
        api.call(method, path, Optional.of(body), ifMatch(ifMatch), lifecycleTimeout, what), what);
  }

  private static Map<String, String> ifMatch(OptionalLong version) {
    return version.isPresent() ? Map.of("If-Match", "\"" + version.getAsLong() + "\"") : NO_HEADERS;
  }

  private static JsonNode body(HttpApi.Answer answer, String what) {
    return answer
        .json()
        .orElseThrow(
            () ->
                new BerthProtocolException(
                    what + ": the server answered " + answer.status() + " without a body"));
  }

  /** {@code session} of a read or write answer: the session object, or just its id. */
  private static Optional<SessionView> servedSession(JsonNode body) {
    JsonNode node = body.path("session");
    return node.isObject() ? Optional.of(session(node)) : Optional.empty();
  }

  private static SessionView session(JsonNode node) {
    return Json.read(node, SessionView.class, "session");
  }

  private static Execution execution(JsonNode node) {
    return Json.read(node, Execution.class, "execution");
  }

  /** Settings of a {@link BerthClient}. */
  public static final class Builder {
    private final URI url;
    private final String token;
    private Duration connectTimeout = Duration.ofSeconds(10);
    private Duration timeout = Duration.ofSeconds(30);
    private Duration lifecycleTimeout = Duration.ofMinutes(3);

    private Builder(URI url, String token) {
      this.url = url;
      this.token = token;
    }

    /** How long to wait for a connection (default 10 s). */
    public Builder connectTimeout(Duration value) {
      this.connectTimeout = positive(value, "connectTimeout");
      return this;
    }

    /** How long to wait for the answer to a plain request (default 30 s). */
    public Builder timeout(Duration value) {
      this.timeout = positive(value, "timeout");
      return this;
    }

    /**
     * How long to wait for requests the server serves only once the session reached a state (create
     * waits up to 120 s, delete 60 s, a restore as long as it takes; default 3 min).
     */
    public Builder lifecycleTimeout(Duration value) {
      this.lifecycleTimeout = positive(value, "lifecycleTimeout");
      return this;
    }

    public BerthClient build() {
      return new BerthClient(this);
    }

    private static Duration positive(Duration value, String name) {
      if (value.isNegative() || value.isZero()) {
        throw new IllegalArgumentException(name + " must be positive, was " + value);
      }
      return value;
    }
  }
}
