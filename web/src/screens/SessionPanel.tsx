// The workspace's side panel: state, the idle countdown and its reason, the runtime and the
// isolation in force, the actions (Snapshot now, Switch, Delete) and the operations timeline.

import { useState } from "react";
import { api } from "../api/client";
import type { IdleView, Operation, RuntimeStatus, Session } from "../api/types";
import { ConfirmDelete } from "../components/ConfirmDelete";
import { Dialog } from "../components/Dialog";
import { StateBadge } from "../components/StateBadge";
import { useToast } from "../components/Toasts";
import { HumanText, Size, When } from "../components/Human";
import { leaseView } from "../lib/lease";
import { limitView } from "../lib/limits";
import { operationLabel, operationResult, stateDetail, stateSentence } from "../lib/describe";
import { clock, duration, stepLabel } from "../lib/format";
import { useMounted, useNow } from "../lib/hooks";
import { usePolling } from "../lib/polling";
import { sessionPath, useRouter } from "../lib/router";
import { errorText } from "../lib/sessionPorts";
import { lifecycle } from "../api/types";

export interface PanelHooks {
  /** Called before the snapshot request: the workspace lets go of the stream it holds. */
  beforeSnapshot(): void;
  /** Called when the snapshot failed: the workspace picks the stream up again. */
  snapshotFailed(): void;
}

export function SessionPanel(props: { session: Session; hooks: PanelHooks; children?: React.ReactNode }) {
  const { session } = props;
  const [idle, setIdle] = useState<IdleView>();
  const [runtime, setRuntime] = useState<RuntimeStatus>();
  const [runtimeError, setRuntimeError] = useState<string>();
  const [operations, setOperations] = useState<Operation[]>([]);
  const [busy, setBusy] = useState<"snapshot" | undefined>();
  const [actionError, setActionError] = useState<string>();
  const [deleting, setDeleting] = useState(false);
  const [switching, setSwitching] = useState(false);
  const { navigate } = useRouter();
  const mounted = useMounted();
  const toast = useToast();
  const now = useNow(1000);

  usePolling(
    async (signal) => {
      const [i, ops] = await Promise.all([
        api.idle(session.id, signal).catch(() => undefined),
        api.operations(session.id, signal).catch(() => undefined),
      ]);
      if (i) setIdle(i);
      if (ops) setOperations([...ops].sort((a, b) => b.createdAt.localeCompare(a.createdAt)));
    },
    3000,
    [session.id, session.state, session.phase],
  );
  usePolling(
    async (signal) => {
      // The report is refused (422) unless the runtime is up; do not ask while it is not.
      const now = lifecycle(session);
      if (!session.pod || (now !== "active" && now !== "idle")) {
        setRuntime(undefined);
        return;
      }
      try {
        setRuntime(await api.runtime(session.id, signal));
        setRuntimeError(undefined);
      } catch (e) {
        if (!signal.aborted) setRuntimeError(errorText(e));
      }
    },
    10000,
    [session.id, session.pod, session.state, session.phase],
  );

  const [holding, setHolding] = useState(false);
  const [keptUntil, setKeptUntil] = useState<string>();
  // A keep-alive holds the session against suspension without counting as access (capped at 4 h).
  const keepAlive = async () => {
    setHolding(true);
    try {
      const kept = await api.keepAlive(session.id, 3600);
      setKeptUntil(kept.activity?.keepAliveUntil);
      setIdle(await api.idle(session.id));
      toast(`"${session.name}" is kept from suspension for 1 h`);
    } catch (e) {
      setActionError(`Keep-alive failed: ${errorText(e)}`);
    } finally {
      setHolding(false);
    }
  };

  const snapshot = async () => {
    setBusy("snapshot");
    setActionError(undefined);
    props.hooks.beforeSnapshot();
    try {
      await api.snapshot(session.id, session.intentVersion);
      toast(`Session "${session.name}" snapshotted — runtime reclaimed`, "frozen");
      // Only from the workspace it was taken in: a user who went elsewhere meanwhile stays there.
      if (mounted.current) navigate("/");
    } catch (e) {
      setActionError(`Snapshot failed: ${errorText(e)}`);
      props.hooks.snapshotFailed();
      setBusy(undefined);
    }
  };

  const started = session.runtime?.startedAt ? Date.parse(session.runtime.startedAt) : undefined;
  // A keep-alive postpones the suspension to its end when that is later.
  const keepAliveUntil = latest(keptUntil, session.activity?.keepAliveUntil);
  const held = keepAliveUntil && Date.parse(keepAliveUntil) > now ? Date.parse(keepAliveUntil) : undefined;
  const suspendAt = idle?.suspendAt
    ? Math.max(Date.parse(idle.suspendAt), held ?? 0)
    : undefined;
  const canSnapshot = lifecycle(session) === "active" || lifecycle(session) === "idle";

  return (
    <aside className="panel" aria-label="Session">
      <section className="panel-section">
        <h2 className="panel-title">State</h2>
        <div className="state-line" data-testid="ws-state">
          <StateBadge state={lifecycle(session)} large title={stateDetail(session)} />
          <span className="muted" title={stateDetail(session)} data-testid="ws-state-sentence">
            {stateSentence(session)}
          </span>
        </div>
        {session.failure && (
          <p className="form-error">
            {session.failure.reason}: <HumanText text={session.failure.message} now={now} />
          </p>
        )}
      </section>

      <section className="panel-section">
        <h2 className="panel-title">Idle</h2>
        {idle ? (
          <>
            <p className="big-number" data-testid="idle-countdown">
              {idle.decision === "held"
                ? "held"
                : !idle.suspendEnabled
                  ? "no auto-suspend"
                  : suspendAt
                    ? `suspends in ${clock(suspendAt - now)}`
                    : idle.decision}
            </p>
            <p className="muted small" data-testid="idle-reason">
              <HumanText text={idle.reason} now={now} />
              {!idle.suspendEnabled && idle.suspendAt && (
                <>
                  {" "}
                  · would suspend at <When iso={idle.suspendAt} now={now} relative={false} />
                </>
              )}
            </p>
            {held && (
              <p className="small" data-testid="keepalive">
                Kept from suspension until <When iso={new Date(held).toISOString()} now={now} relative={false} />{" "}
                (keep-alive)
              </p>
            )}
            {idle.suspendEnabled && canSnapshot && (
              <button type="button" className="btn btn-small" onClick={keepAlive} disabled={holding}>
                {holding ? "Holding…" : "Keep for 1 h"}
              </button>
            )}
          </>
        ) : (
          <p className="muted">—</p>
        )}
      </section>

      <section className="panel-section">
        <h2 className="panel-title">Runtime</h2>
        {session.runtime ? (
          <dl className="facts">
            <dt>name</dt>
            <dd className="mono">{session.runtime.name}</dd>
            <dt>kind</dt>
            <dd>
              {session.runtime.kind} · incarnation {session.runtime.incarnation}
            </dd>
            <dt>uptime</dt>
            <dd>{started ? duration(now - started) : "—"}</dd>
            {runtime?.disk && <DiskUse disk={runtime.disk} />}
            {runtime?.foreground && (
              <>
                <dt>running</dt>
                <dd className="mono">{runtime.foreground}</dd>
              </>
            )}
            {runtime?.lease && <LeaseFacts lease={runtime.lease} now={now} stopReason={runtime.stopReason} />}
          </dl>
        ) : (
          <p className="muted">No runtime: its resources are reclaimed.</p>
        )}
      </section>

      <section className="panel-section">
        <h2 className="panel-title">Isolation</h2>
        {runtime?.isolation?.weaknesses?.length ? (
          <div className="weak-isolation" role="alert" data-testid="weak-isolation">
            <strong>Weak isolation</strong>
            <ul>
              {runtime.isolation.weaknesses.map((w) => (
                <li key={w}>{w}</li>
              ))}
            </ul>
          </div>
        ) : null}
        {runtime?.isolation ? (
          <dl className="facts" data-testid="isolation">
            <dt>sandbox</dt>
            <dd>{runtime.isolation.sandbox ?? "—"}</dd>
            <dt>namespaces</dt>
            <dd>{runtime.isolation.namespaces?.length ? runtime.isolation.namespaces.join(", ") : "none"}</dd>
            <dt>user</dt>
            <dd>
              {runtime.isolation.user?.name ?? "—"}
              {runtime.isolation.user?.dedicated ? " (own host uid)" : ""}
            </dd>
            <dt>network</dt>
            <dd>{runtime.isolation.network?.mode ?? "—"}</dd>
            <dt>seccomp</dt>
            <dd>{runtime.isolation.seccomp?.mode ?? "—"}</dd>
            <dt>cgroup</dt>
            <dd>{runtime.isolation.cgroup ?? "—"}</dd>
            {Object.entries(runtime.isolation.limits ?? {}).map(([k, v]) => (
              <Limit key={k} name={k} value={v} />
            ))}
          </dl>
        ) : (
          <p className="muted">{runtimeError ? `Not known: ${runtimeError}` : session.pod ? "…" : "—"}</p>
        )}
      </section>

      <section className="panel-section">
        <h2 className="panel-title">Actions</h2>
        <div className="actions">
          <button
            type="button"
            className="btn btn-frost"
            onClick={snapshot}
            disabled={!canSnapshot || busy !== undefined}
            data-testid="snapshot-now"
          >
            {busy === "snapshot" ? "Snapshotting…" : "Snapshot now"}
          </button>
          <button type="button" className="btn" onClick={() => setSwitching(true)} disabled={busy !== undefined}>
            Switch…
          </button>
          <button
            type="button"
            className="btn btn-danger"
            onClick={() => setDeleting(true)}
            disabled={busy !== undefined}
            data-testid="delete-session"
          >
            Delete
          </button>
        </div>
        {actionError && (
          <p className="form-error" role="alert">
            {actionError}
          </p>
        )}
      </section>

      {props.children}

      <section className="panel-section">
        <h2 className="panel-title">Operations</h2>
        <Timeline operations={operations} now={now} />
      </section>

      {deleting && (
        <ConfirmDelete
          session={session}
          onCancel={() => setDeleting(false)}
          onDeleted={(gone) => {
            setDeleting(false);
            toast(gone ? `Session "${session.name}" deleted` : `Session "${session.name}" is being deleted`);
            navigate("/");
          }}
        />
      )}
      {switching && <SwitchDialog current={session} onClose={() => setSwitching(false)} />}
    </aside>
  );
}

function latest(a?: string, b?: string): string | undefined {
  if (!a) return b;
  if (!b) return a;
  return Date.parse(a) >= Date.parse(b) ? a : b;
}

/**
 * The runtime's control lease and its disconnect policy: what the agent does with the workload if
 * the control plane stops renewing the lease, and whether it already did.
 */
export function LeaseFacts({
  lease,
  now,
  stopReason,
}: {
  lease: NonNullable<RuntimeStatus["lease"]>;
  now: number;
  stopReason?: string;
}) {
  const view = leaseView(lease, now);
  return (
    <>
      <dt>lease</dt>
      <dd data-testid="control-lease" className={view.lost ? "lease-lost" : undefined} title={view.state}>
        {view.detail}
      </dd>
      <dt>if disconnected</dt>
      <dd data-testid="disconnect-policy">{view.policy}</dd>
      {stopReason && (
        <>
          <dt>stopped</dt>
          <dd className="mono" role="alert">
            {stopReason}
          </dd>
        </>
      )}
    </>
  );
}

/** The disk the session's state takes, against its cap: a write beyond the cap fails inside. */
export function DiskUse({ disk }: { disk: NonNullable<RuntimeStatus["disk"]> }) {
  const share = disk.capBytes > 0 ? Math.min(1, disk.usedBytes / disk.capBytes) : 0;
  const level = share >= 0.95 ? "full" : share >= 0.8 ? "high" : "ok";
  return (
    <>
      <dt>disk</dt>
      <dd data-testid="disk-use">
        <Size count={disk.usedBytes} /> of <Size count={disk.capBytes} />
        {disk.enforced ? "" : " (not enforced)"}
        <meter
          className={`disk-meter disk-${level}`}
          min={0}
          max={1}
          low={0.8}
          high={0.95}
          optimum={0}
          value={share}
          aria-label="disk used of the cap"
        />
      </dd>
    </>
  );
}

function Limit({ name, value }: { name: string; value: unknown }) {
  const view = limitView(name, value);
  return (
    <>
      <dt title={name}>{view.label}</dt>
      <dd className="mono" data-limit={name}>
        {view.kind === "bytes" ? <Size count={view.count} /> : <span title={view.exact}>{view.text}</span>}
      </dd>
    </>
  );
}

export function Timeline({ operations, now }: { operations: Operation[]; now: number }) {
  if (operations.length === 0) return <p className="muted">No operations yet.</p>;
  return (
    <ol className="timeline" data-testid="operations">
      {operations.map((op) => (
        <li key={op.id} className={`op op-${op.state.toLowerCase()}`}>
          <div className="op-head">
            <strong title={op.type}>{operationLabel(op.type)}</strong>
            <span className={`op-state op-state-${op.state.toLowerCase()}`} title={op.state}>
              {operationResult(op.state)}
            </span>
            <span className="muted small">
              <When iso={op.createdAt} now={now} relative={false} />
            </span>
          </div>
          {op.steps.length > 0 && (
            <ul className="op-steps">
              {op.steps.map((s) => (
                <li key={s.name + s.at}>
                  <span className="muted small">
                    <When iso={s.at} now={now} relative={false} />
                  </span>{" "}
                  <span title={s.name}>{stepLabel(s.name)}</span>
                  {s.detail && (
                    <span className="muted">
                      {" "}
                      — <HumanText text={s.detail} now={now} />
                    </span>
                  )}
                </li>
              ))}
            </ul>
          )}
          {op.error && (
            <p className="form-error small" title={op.error.reason}>
              <HumanText text={op.error.message} now={now} />
            </p>
          )}
        </li>
      ))}
    </ol>
  );
}

/** Switch (J3): pick a session; it is made active (a snapshot is restored) and opened. */
function SwitchDialog({ current, onClose }: { current: Session; onClose(): void }) {
  const [sessions, setSessions] = useState<Session[]>();
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState<string>();
  const { navigate } = useRouter();
  const mounted = useMounted();
  const toast = useToast();

  usePolling(
    async (signal) => {
      try {
        const all = await api.sessions(signal);
        setSessions(all.filter((s) => s.state !== "deleted"));
      } catch (e) {
        if (!signal.aborted) setError(errorText(e));
      }
    },
    5000,
  );

  const pick = async (target: Session) => {
    setBusy(target.id);
    setError(undefined);
    try {
      const active = await api.switchTo(target.id);
      toast(`Switched to "${active.name}": ${stateSentence(active).toLowerCase()}`);
      if (!mounted.current) return; // closed meanwhile: the user went elsewhere
      onClose();
      navigate(sessionPath(active));
    } catch (e) {
      setError(`Switch failed: ${errorText(e)}`);
      setBusy(undefined);
    }
  };

  return (
    <Dialog title="Switch to a session" onCancel={onClose} busy={busy !== undefined} testId="switch-dialog">
      <p className="muted">The session you pick is made active — restored first if it is a snapshot — and opened.</p>
      {!sessions && !error && <p className="muted">Loading sessions…</p>}
      {sessions && (
        <ul className="switch-list">
          {sessions.map((s) => (
            <li key={s.id}>
              <button type="button" className="switch-item" onClick={() => pick(s)} disabled={busy !== undefined}>
                <span className="switch-name">{s.name}</span>
                <span className="muted small">{s.id === current.id ? "this session" : s.workloadType}</span>
                <StateBadge state={lifecycle(s)} title={stateDetail(s)} />
                {busy === s.id && <span className="small">switching…</span>}
              </button>
            </li>
          ))}
        </ul>
      )}
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
      <div className="dialog-actions">
        <button type="button" className="btn" onClick={onClose} disabled={busy !== undefined}>
          Close
        </button>
      </div>
    </Dialog>
  );
}
