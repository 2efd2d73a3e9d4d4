// The public API over fetch. Every failure becomes an ApiError carrying the problem+json fields the
// server sends (docs/api.md "Errors"); the UI shows `detail` (or `title`) to the user. The browser
// authenticates with the HttpOnly cookie set by GET /login?token=, so no token is ever handled here.

import type {
  Approval,
  ApprovalDecision,
  ApprovalList,
  Config,
  Execution,
  TranscriptPage,
  IdleView,
  Operation,
  ReadResult,
  Recovery,
  RuntimeStatus,
  Session,
  SessionList,
  WriteResult,
  PluginRefreshResult,
} from "./types";

export const API = "/api/v1";

/** A problem answered by the server, or a request that never got an answer (status 0). */
export class ApiError extends Error {
  readonly status: number;
  readonly reason: string;
  readonly title: string;
  readonly detail: string;

  constructor(status: number, reason: string, title: string, detail: string) {
    super(detail || title || reason || `HTTP ${status}`);
    this.name = "ApiError";
    this.status = status;
    this.reason = reason;
    this.title = title;
    this.detail = detail;
  }
}

type Unauthenticated = (error: ApiError) => void;
const unauthenticatedListeners = new Set<Unauthenticated>();

/** Called whenever the server answers 401: the cookie is missing, wrong or revoked. */
export function onUnauthenticated(listener: Unauthenticated): () => void {
  unauthenticatedListeners.add(listener);
  return () => unauthenticatedListeners.delete(listener);
}

export function notifyUnauthenticated(error: ApiError): void {
  for (const listener of unauthenticatedListeners) listener(error);
}

/** Turns a non-2xx answer into an ApiError, reading problem+json when the server sent it. */
export async function problemOf(response: Response): Promise<ApiError> {
  let reason = "";
  let title = response.statusText;
  let detail = "";
  const type = response.headers.get("Content-Type") ?? "";
  if (type.includes("json")) {
    try {
      const body = (await response.json()) as Record<string, unknown>;
      reason = typeof body.reason === "string" ? body.reason : "";
      title = typeof body.title === "string" ? body.title : title;
      detail =
        typeof body.detail === "string"
          ? body.detail
          : typeof body.error === "string"
            ? body.error
            : "";
    } catch {
      // not JSON after all; the status line is all we have
    }
  }
  const error = new ApiError(response.status, reason, title, detail || `${response.status} ${title}`);
  if (response.status === 401) notifyUnauthenticated(error);
  return error;
}

interface CallOptions {
  body?: unknown;
  ifMatch?: number;
  signal?: AbortSignal;
}

async function call<T>(method: string, path: string, options: CallOptions = {}): Promise<T> {
  const headers: Record<string, string> = { Accept: "application/json" };
  if (options.body !== undefined) headers["Content-Type"] = "application/json";
  if (options.ifMatch !== undefined) headers["If-Match"] = `"${options.ifMatch}"`;
  let response: Response;
  try {
    response = await fetch(API + path, {
      method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      credentials: "same-origin",
      signal: options.signal,
    });
  } catch (e) {
    if (e instanceof DOMException && e.name === "AbortError") throw e;
    throw new ApiError(0, "NETWORK", "Network error", "the server cannot be reached");
  }
  if (!response.ok) throw await problemOf(response);
  if (response.status === 204) return undefined as T;
  const text = await response.text();
  return (text ? JSON.parse(text) : undefined) as T;
}

const enc = encodeURIComponent;

export const api = {
  config: () => call<Config>("GET", "/config"),

  /**
   * Every session the caller may see, following the pages; deleted ones (which answer 404 on their
   * own routes) only with `deleted`, and then only those.
   */
  async sessions(signal?: AbortSignal, deleted = false): Promise<Session[]> {
    const all: Session[] = [];
    let token: string | undefined;
    do {
      const query = `?limit=1000${deleted ? "&deleted=true" : ""}${token ? `&pageToken=${enc(token)}` : ""}`;
      const page = await call<SessionList>("GET", `/sessions${query}`, { signal });
      all.push(...page.sessions);
      token = page.nextPageToken;
    } while (token);
    return all;
  },

  session: (id: string, signal?: AbortSignal) =>
    call<Session>("GET", `/sessions/${enc(id)}`, { signal }),

  /** Answers at once (?wait=false): the UI follows provisioning through the operation. */
  create: (body: { name: string; workloadType?: string; model?: string }) =>
    call<Session>("POST", "/sessions?wait=false", { body }),

  /** Session while termination continues (202), undefined once terminated (204). */
  remove: (id: string) => call<Session | undefined>("DELETE", `/sessions/${enc(id)}`),

  read: (id: string, offset: number) =>
    call<ReadResult>("POST", `/sessions/${enc(id)}/read`, { body: { offset } }),

  write: (id: string, payload: string) =>
    call<WriteResult>("POST", `/sessions/${enc(id)}/write`, {
      body: { payload },
    }),

  /** A deleted session's last archive as a new session (a snapshot). */
  recover: (id: string) => call<Session>("POST", `/sessions/${enc(id)}/recover`, { body: {} }),

  switchTo: (id: string) => call<Session>("POST", `/sessions/${enc(id)}/switch`, { body: {} }),

  snapshot: (id: string, ifMatch?: number) =>
    call<Session>("POST", `/sessions/${enc(id)}/snapshot`, { body: {}, ifMatch }),

  idle: (id: string, signal?: AbortSignal) =>
    call<IdleView>("GET", `/sessions/${enc(id)}/idle`, { signal }),

  keepAlive: (id: string, seconds: number) =>
    call<Session>("POST", `/sessions/${enc(id)}/keepalive`, { body: { seconds } }),

  operations: (id: string, signal?: AbortSignal) =>
    call<{ operations: Operation[] }>("GET", `/sessions/${enc(id)}/operations`, { signal }).then(
      (r) => r.operations,
    ),

  executions: (id: string, signal?: AbortSignal) =>
    call<{ executions: Execution[] }>("GET", `/sessions/${enc(id)}/executions`, { signal }).then(
      (r) => r.executions,
    ),

  /**
   * An agent session's transcript after `cursor` as server-sent events, one `entry` event per entry
   * whose id is the cursor after it (passive); the caller reads the body and closes it.
   */
  async transcriptStream(id: string, cursor: number, signal: AbortSignal): Promise<Response> {
    const response = await fetch(`${API}/sessions/${enc(id)}/transcript/stream?cursor=${cursor}`, {
      headers: { Accept: "text/event-stream" },
      signal,
      cache: "no-store",
      credentials: "same-origin",
    });
    if (!response.ok) throw await problemOf(response);
    return response;
  },

  /**
   * An agent session takes its plugins anew from the marketplace, keeping its conversation (an
   * access: restores a snapshot); refused with 409 PROMPTS_RUNNING while a prompt runs or waits.
   */
  refreshPlugins: (id: string) =>
    call<PluginRefreshResult>("POST", `/sessions/${enc(id)}/plugins/refresh`, { body: {} }),

  /** An agent session's transcript after `cursor` (passive: never restores). */
  transcript: (id: string, cursor: number, signal?: AbortSignal) =>
    call<TranscriptPage>("GET", `/sessions/${enc(id)}/transcript?cursor=${cursor}`, { signal }),

  /** Drops a waiting prompt or kills a running one (an execution of any kind). */
  cancel: (id: string, execution: string) =>
    call<Execution>("POST", `/sessions/${enc(id)}/executions/${enc(execution)}/cancel`, { body: {} }),

  /**
   * An agent session's approvals, newest first: the tool calls its credential proxy holds (or
   * held) for a decision. Passive: never an access, never restores.
   */
  approvals: (id: string, signal?: AbortSignal) =>
    call<ApprovalList>("GET", `/sessions/${enc(id)}/approvals`, { signal }).then((r) => r.items),

  /** Approves or rejects a pending approval; 409 once it was decided or expired, 404 unknown. */
  decideApproval: (id: string, approvalId: string, body: ApprovalDecision) =>
    call<Approval>("POST", `/sessions/${enc(id)}/approvals/${enc(approvalId)}`, { body }),

  /** Whether the signed-in principal is the admin (`GET /whoami`). */
  async isAdmin(signal?: AbortSignal): Promise<boolean> {
    const me = await call<{ principal: string }>("GET", "/whoami", { signal });
    return me.principal === "admin";
  },

  /** Recovery mode after a restore of an older store backup (admin only). */
  recovery: (signal?: AbortSignal) => call<Recovery>("GET", "/admin/recovery", { signal }),

  runtime: (id: string, signal?: AbortSignal) =>
    call<RuntimeStatus>("GET", `/sessions/${enc(id)}/runtime`, { signal }),
};
