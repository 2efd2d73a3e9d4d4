// The sessions console (`/`): one card per session with what matters in its state, counts per
// state, polled every 3 s while the page is visible (no full reload), delete behind a dialog.

import { useCallback, useEffect, useRef, useState } from "react";
import { api } from "../api/client";
import type { IdleView, Session } from "../api/types";
import { ConfirmDelete } from "../components/ConfirmDelete";
import { Menu } from "../components/Menu";
import { StateBadge } from "../components/StateBadge";
import { useToast } from "../components/Toasts";
import { HumanText, Size, When } from "../components/Human";
import { pendingBadge } from "../lib/approvals";
import { clock, duration, shortId } from "../lib/format";
import { stateDetail, stateSentence } from "../lib/describe";
import { useMounted, useNow } from "../lib/hooks";
import { usePolling } from "../lib/polling";
import { Link, sessionPath, useRouter } from "../lib/router";
import { errorText } from "../lib/sessionPorts";
import { lifecycle } from "../api/types";

const POLL_MS = 3000;

type Load =
  | { kind: "loading" }
  | { kind: "ready"; sessions: Session[]; deleted: Session[]; at: number; error?: string }
  | { kind: "failed"; error: string };

export function Console() {
  const [load, setLoad] = useState<Load>({ kind: "loading" });
  const [idle, setIdle] = useState<Record<string, IdleView>>({});
  const [deleting, setDeleting] = useState<Session>();
  const toast = useToast();
  const generation = useRef(0);
  const admin = useAdmin();

  const refresh = useCallback(async (signal?: AbortSignal) => {
    const mine = ++generation.current;
    try {
      // A deleted session is gone from its own routes; the listing gives it apart (deleted=true),
      // under Recently deleted, where its last archive can be recovered.
      const [sessions, deleted] = await Promise.all([
        api.sessions(signal),
        api.sessions(signal, true).then((all) => all.filter((s) => lifecycle(s) === "deleted")),
      ]);
      const idleOnes = sessions.filter((s) => s.state === "idle");
      const views = await Promise.all(
        idleOnes.map((s) => api.idle(s.id, signal).then((v) => [s.id, v] as const, () => undefined)),
      );
      if (mine !== generation.current) return;
      setIdle(Object.fromEntries(views.filter((v) => v !== undefined)));
      setLoad({ kind: "ready", sessions: sortSessions(sessions), deleted: sortSessions(deleted), at: Date.now() });
    } catch (e) {
      if (signal?.aborted || mine !== generation.current) return;
      const error = errorText(e);
      setLoad((previous) =>
        previous.kind === "ready" ? { ...previous, error } : { kind: "failed", error },
      );
      throw e;
    }
  }, []);

  // A failed refresh shows its error on the page and is tried again at the usual pace (not backed
  // off), so the console notices the server back as soon as it is.
  usePolling((signal) => refresh(signal).catch(() => undefined), POLL_MS);

  const sessions = load.kind === "ready" ? load.sessions : [];
  // Every card shows an age ("3 min ago"), so the clock ticks while there is any card.
  const now = useNow(1000, sessions.length > 0);
  const counts = countStates(sessions);

  return (
    <main className="page" aria-labelledby="console-title">
      <header className="page-header">
        <div>
          <p className="eyebrow">Control plane</p>
          <h1 id="console-title">Sessions</h1>
          <p className="subtitle">
            {load.kind === "ready"
              ? `${sessions.length} session${sessions.length === 1 ? "" : "s"} · refreshed every 3 s`
              : "Isolated shells and agents, suspended when idle, restored on access."}
          </p>
        </div>
        <div className="header-actions">
          <button
            type="button"
            className="btn"
            onClick={() =>
              refresh().then(
                () => toast("Sessions refreshed"),
                (e) => toast(`Refresh failed: ${errorText(e)}`, "error"),
              )
            }
          >
            Refresh
          </button>
          <Link to="/new" className="btn btn-primary" data-testid="new-session">
            New session
          </Link>
        </div>
      </header>

      {load.kind === "ready" && sessions.length > 0 && (
        <ul className="chips" aria-label="Sessions by state">
          <li className="chip chip-active" data-testid="count-active">
            <strong>{counts.active}</strong> active
          </li>
          <li className="chip chip-idle" data-testid="count-idle">
            <strong>{counts.idle}</strong> idle
          </li>
          <li className="chip chip-snapshot" data-testid="count-snapshot">
            <strong>{counts.snapshot}</strong> snapshot
          </li>
          {counts.busy > 0 && (
            <li className="chip chip-busy">
              <strong>{counts.busy}</strong> changing
            </li>
          )}
          {counts.failed > 0 && (
            <li className="chip chip-failed">
              <strong>{counts.failed}</strong> failed
            </li>
          )}
          {counts.archived > 0 && (
            <li className="chip chip-reclaimed">
              <strong>
                <Size count={counts.archived} />
              </strong>{" "}
              archived, runtimes reclaimed
            </li>
          )}
        </ul>
      )}

      {load.kind === "ready" && load.error && (
        <p className="banner banner-warn" role="alert">
          Could not refresh: {load.error}. Showing the sessions as of {new Date(load.at).toLocaleTimeString()}.
        </p>
      )}

      {load.kind === "loading" && (
        <p className="placeholder" aria-busy="true">
          Loading sessions…
        </p>
      )}
      {load.kind === "failed" && (
        <div className="placeholder placeholder-error" role="alert">
          <p>Failed to load sessions: {load.error}</p>
          <button type="button" className="btn" onClick={() => refresh().catch(() => undefined)}>
            Try again
          </button>
        </div>
      )}
      {load.kind === "ready" && sessions.length === 0 && (
        <div className="placeholder" data-testid="empty-state">
          <p>No sessions yet. Create one to get started.</p>
          <Link to="/new" className="btn btn-primary">
            New session
          </Link>
        </div>
      )}

      {sessions.length > 0 && (
        <ul className="cards" aria-label="Sessions">
          {sessions.map((s) => (
            <SessionCard
              key={s.id}
              session={s}
              idle={idle[s.id]}
              now={now}
              showTenant={admin}
              onDelete={() => setDeleting(s)}
            />
          ))}
        </ul>
      )}

      {load.kind === "ready" && load.deleted.length > 0 && (
        <RecentlyDeleted
          sessions={load.deleted}
          live={sessions}
          showTenant={admin}
          onRecovered={() => refresh().catch(() => undefined)}
        />
      )}

      {deleting && (
        <ConfirmDelete
          session={deleting}
          onCancel={() => setDeleting(undefined)}
          onDeleted={(gone) => {
            const name = deleting.name;
            setDeleting(undefined);
            toast(gone ? `Session "${name}" deleted` : `Session "${name}" is being deleted`);
            if (gone) {
              setLoad((now) =>
                now.kind === "ready" ? { ...now, sessions: now.sessions.filter((x) => x.id !== deleting.id) } : now,
              );
            }
            refresh().catch(() => undefined);
          }}
        />
      )}
    </main>
  );
}

/**
 * Whether the principal is the admin, who sees every tenant's sessions and so is shown whose each
 * one is; false until known (and for a tenant, who sees only its own).
 */
function useAdmin(): boolean {
  const [admin, setAdmin] = useState(false);
  useEffect(() => {
    const abort = new AbortController();
    api.isAdmin(abort.signal).then(setAdmin, () => undefined);
    return () => abort.abort();
  }, []);
  return admin;
}

function SessionCard(props: { session: Session; idle?: IdleView; now: number; showTenant: boolean; onDelete(): void }) {
  const { session: s, now } = props;
  const { navigate } = useRouter();
  const target = sessionPath(s);
  const open = (event: React.MouseEvent) => {
    const interactive = (event.target as HTMLElement).closest("a, button, [role=menu]");
    if (!interactive) navigate(target);
  };
  return (
    <li
      className={`card card-${s.state}`}
      data-testid="session-card"
      data-session-id={s.id}
      data-state={s.state}
      data-workload-type={s.workloadType}
      onClick={open}
    >
      <div className="card-head">
        <div className="card-title">
          <Link to={target} className="card-name" data-testid="card-open">
            {s.name}
          </Link>
          <code className="card-id" title={s.id}>
            session/{s.id}
          </code>
        </div>
        <StateBadge state={lifecycle(s)} title={stateDetail(s)} />
        <Menu
          label={`Actions for ${s.name}`}
          testId="card-menu"
          items={[
            { label: s.state === "snapshot" ? "Restore…" : "Open", onSelect: () => navigate(target) },
            { label: "Delete…", danger: true, onSelect: props.onDelete },
          ]}
        />
      </div>
      <ApprovalsBadge count={s.pendingApprovals} />
      <div className="card-body">
        <CardBody session={s} idle={props.idle} now={now} />
      </div>
      <div className="card-foot">
        <span className="muted">{s.pod ? `runtime/${s.pod}` : "runtime reclaimed"}</span>
        {props.showTenant && <TenantTag tenant={s.tenant} />}
        <span className="tag">{s.workloadType === "shell" ? "$ shell" : `◇ ${s.workloadType}`}</span>
      </div>
    </li>
  );
}

/** "1 approval waiting": the session's agent holds a tool call until someone decides. */
function ApprovalsBadge({ count }: { count?: number }) {
  const text = pendingBadge(count);
  if (!text) return null;
  return (
    <p className="card-approvals">
      <span
        className="tag tag-approvals"
        data-testid="card-approvals"
        title="a tool call waits for a decision: open the session to approve or reject it"
      >
        {text}
      </span>
    </p>
  );
}

function CardBody({ session: s, idle, now }: { session: Session; idle?: IdleView; now: number }) {
  // On its way somewhere (provisioning, suspending, restoring) a card says so, whatever the state.
  switch (lifecycle(s)) {
    case "active": {
      const started = s.runtime?.startedAt ? Date.parse(s.runtime.startedAt) : undefined;
      return (
        <dl className="facts">
          <dt>runtime</dt>
          <dd>
            {s.runtime ? `${s.runtime.kind} · incarnation ${s.runtime.incarnation}` : "—"}
          </dd>
          <dt>uptime</dt>
          <dd data-testid="uptime">{started ? duration(now - started) : "—"}</dd>
          <dt>last access</dt>
          <dd>
            <When iso={s.lastAccess} now={now} />
          </dd>
        </dl>
      );
    }
    case "idle": {
      // A keep-alive postpones the suspension to its end when that is later.
      const kept = s.activity?.keepAliveUntil ? Date.parse(s.activity.keepAliveUntil) : 0;
      const suspendAt = idle?.suspendAt ? Math.max(Date.parse(idle.suspendAt), kept) : undefined;
      const idleAt = idle?.idleAt ? Date.parse(idle.idleAt) : undefined;
      const total = suspendAt && idleAt ? suspendAt - idleAt : undefined;
      const left = suspendAt ? suspendAt - now : undefined;
      const fraction = total && left !== undefined ? Math.max(0, Math.min(1, left / total)) : undefined;
      return (
        <div className="idle-body">
          {fraction !== undefined && <Ring fraction={fraction} />}
          <dl className="facts">
            <dt>suspends in</dt>
            <dd data-testid="suspends-in">
              {!idle ? (
                "—"
              ) : idle.decision === "held" ? (
                <>
                  held: <HumanText text={idle.reason} now={now} />
                </>
              ) : !idle.suspendEnabled ? (
                "never (suspend is off)"
              ) : left !== undefined ? (
                clock(left)
              ) : (
                <HumanText text={idle.reason} now={now} />
              )}
            </dd>
            <dt>idle for</dt>
            <dd>{idleAt ? duration(now - idleAt) : <When iso={s.lastAccess} now={now} />}</dd>
            <dt>runtime</dt>
            <dd>held</dd>
          </dl>
        </div>
      );
    }
    case "snapshot": {
      const archive = s.checkpoint;
      return (
        <dl className="facts">
          <dt>archive</dt>
          <dd data-testid="archive-size">
            <Size count={archive?.sizeBytes} />
          </dd>
          <dt>frozen</dt>
          <dd>
            <When iso={archive?.createdAt ?? s.archive?.createdAt} now={now} />
          </dd>
          <dt>reclaimed</dt>
          <dd>{archive?.reclaimed ?? (s.pod ? "no" : "runtime released")}</dd>
          <dd className="hint">{stateSentence(s)}</dd>
        </dl>
      );
    }
    case "failed":
      return (
        <p className="card-failure">
          {s.failure ? (
            <>
              {s.failure.reason}: <HumanText text={s.failure.message} now={now} />
            </>
          ) : (
            stateSentence(s)
          )}
        </p>
      );
    default:
      return (
        <p className="muted" data-testid="card-doing">
          {stateSentence(s)}
          {s.intent?.reason && (
            <>
              {" "}
              (<HumanText text={s.intent.reason} now={now} />)
            </>
          )}
        </p>
      );
  }
}

/**
 * Deleted sessions, each recoverable from its last archive while the server keeps it; one already
 * recovered links to the session its recovery made (`recoveredAs`) instead.
 */
function RecentlyDeleted(props: { sessions: Session[]; live: Session[]; showTenant: boolean; onRecovered(): void }) {
  const { sessions, live, onRecovered } = props;
  const [busy, setBusy] = useState<string>();
  const [errors, setErrors] = useState<Record<string, string>>({});
  const { navigate } = useRouter();
  const mounted = useMounted();
  const toast = useToast();
  const now = useNow(60_000);
  const recover = async (s: Session) => {
    setBusy(s.id);
    setErrors((e) => ({ ...e, [s.id]: "" }));
    try {
      const recovered = await api.recover(s.id);
      toast(`Session "${recovered.name}" recovered as a snapshot`, "frozen");
      if (!mounted.current) return; // the user went elsewhere meanwhile
      onRecovered();
      navigate(sessionPath(recovered));
    } catch (e) {
      setErrors((all) => ({ ...all, [s.id]: errorText(e) }));
    } finally {
      setBusy(undefined);
    }
  };
  return (
    <details className="deleted" data-testid="recently-deleted">
      <summary>Recently deleted ({sessions.length})</summary>
      <ul className="deleted-list">
        {sessions.map((s) => (
          <li key={s.id} className="deleted-item" data-session-id={s.id}>
            <span className="deleted-name">
              {s.name} {props.showTenant && <TenantTag tenant={s.tenant} />}
            </span>
            <code className="muted small">session/{s.id}</code>
            <span className="muted small">
              deleted <When iso={s.deletedAt ?? s.intent?.requestedAt} now={now} />
              {s.recoverableUntil && (
                <>
                  , kept until <When iso={s.recoverableUntil} now={now} relative={false} />
                </>
              )}
            </span>
            {s.recoveredAs ? (
              <Heir id={s.recoveredAs} session={live.find((x) => x.id === s.recoveredAs)} />
            ) : (
              <button
                type="button"
                className="btn btn-small"
                onClick={() => recover(s)}
                disabled={busy !== undefined || s.recoverable === false}
                title={
                  s.recoverable === false
                    ? "No archive of it is kept: it was never snapshotted, or its recovery window ended"
                    : undefined
                }
              >
                {busy === s.id ? "Recovering…" : "Recover"}
              </button>
            )}
            {errors[s.id] && (
              <span className="form-error small" role="alert">
                Recover failed: {errors[s.id]}
              </span>
            )}
          </li>
        ))}
      </ul>
    </details>
  );
}

/** The session a deleted one was recovered as: a link while it lives, its id once deleted too. */
function Heir({ id, session }: { id: string; session?: Session }) {
  if (!session) {
    return (
      <span className="muted small" data-testid="recovered-as">
        recovered as session/{shortId(id)}, since deleted
      </span>
    );
  }
  return (
    <Link to={sessionPath(session)} className="btn btn-small" data-testid="recovered-as" title={`session/${id}`}>
      Recovered: open it
    </Link>
  );
}

function TenantTag({ tenant }: { tenant: string }) {
  return (
    <span className="tag" data-testid="tenant" title="the tenant this session belongs to">
      tenant {tenant}
    </span>
  );
}

function Ring({ fraction }: { fraction: number }) {
  const r = 16;
  const c = 2 * Math.PI * r;
  return (
    <svg className="ring" width="40" height="40" viewBox="0 0 40 40" aria-hidden="true">
      <circle cx="20" cy="20" r={r} className="ring-track" />
      <circle
        cx="20"
        cy="20"
        r={r}
        className="ring-fill"
        strokeDasharray={c}
        strokeDashoffset={c * (1 - fraction)}
        transform="rotate(-90 20 20)"
      />
    </svg>
  );
}

function countStates(sessions: Session[]) {
  const counts = { active: 0, idle: 0, snapshot: 0, busy: 0, failed: 0, archived: 0 };
  for (const s of sessions) {
    if (s.state === "active") counts.active++;
    else if (s.state === "idle") counts.idle++;
    else if (s.state === "snapshot") {
      counts.snapshot++;
      counts.archived += s.checkpoint?.sizeBytes ?? 0;
    } else if (s.state === "failed") counts.failed++;
    else counts.busy++;
  }
  return counts;
}

/** Newest first, so a session just created is at the top. */
function sortSessions(sessions: Session[]): Session[] {
  return [...sessions].sort((a, b) => b.createdAt.localeCompare(a.createdAt));
}
