// Restore (`/restore/:id`): what the snapshot holds (archive contents, size, generation, when it was
// taken), then Restore & resume: POST switch restores it, while the resume operation's steps are
// shown as they are reached; the workspace opens once the session is active.

import { useEffect, useRef, useState } from "react";
import { api, ApiError } from "../api/client";
import type { Operation, RestoreProgress, Session } from "../api/types";
import { ConfirmDelete } from "../components/ConfirmDelete";
import { StateBadge } from "../components/StateBadge";
import { useToast } from "../components/Toasts";
import { Size, When } from "../components/Human";
import { stateDetail, stateSentence } from "../lib/describe";
import { stepLabel, time } from "../lib/format";
import { useMounted, useNow } from "../lib/hooks";
import { usePolling } from "../lib/polling";
import { Link, sessionPath, useRouter } from "../lib/router";
import { errorText } from "../lib/sessionPorts";
import { Step } from "./NewSession";
import { LoadState } from "./Common";
import { useSession } from "./useSession";
import { lifecycle } from "../api/types";

const RESUME_STEPS = ["PLAN_RUNTIME", "CREATE_RUNTIME", "RESTORE_ARCHIVE", "AWAIT_READY"];

export function Restore({ id }: { id: string }) {
  const [load, setSession] = useSession(id);
  const { navigate } = useRouter();
  const mounted = useMounted();
  const toast = useToast();
  const [restoring, setRestoring] = useState(false);
  const [error, setError] = useState<string>();
  const [operation, setOperation] = useState<Operation>();
  const [deleting, setDeleting] = useState(false);
  const now = useNow(60_000);
  const restoreButton = useRef<HTMLButtonElement>(null);

  // While the restore runs, its operation is polled for the steps it has reached. Only while the
  // page is visible; errors back off (the switch request reports failures); a session that is gone
  // or terminated ends it.
  usePolling(
    async (signal) => {
      let ops: Operation[];
      let current: Session;
      try {
        [ops, current] = await Promise.all([api.operations(id, signal), api.session(id, signal)]);
      } catch (e) {
        if (signal.aborted || (e instanceof ApiError && e.status === 404)) return true;
        throw e;
      }
      if (signal.aborted) return true;
      setSession(current);
      // The newest resume is the one this restore started (or joined).
      setOperation(
        ops.filter((o) => o.type === "RESUME").sort((a, b) => b.createdAt.localeCompare(a.createdAt))[0],
      );
      return current.state === "deleted" || current.state === "failed";
    },
    400,
    [id],
    restoring,
  );

  useEffect(() => {
    if (load.kind === "ready" && !restoring) restoreButton.current?.focus();
  }, [load.kind, restoring]);

  if (load.kind !== "ready") return <LoadState load={load} />;
  const session = load.session;

  const restore = async () => {
    setRestoring(true);
    setError(undefined);
    try {
      const active = await api.switchTo(id);
      toast(`Session "${active.name}" restored`);
      if (mounted.current) navigate(sessionPath(active), { replace: true });
    } catch (e) {
      setError(`Restore failed: ${errorText(e)}`);
      setRestoring(false);
    }
  };

  const archive = session.archive;
  const checkpoint = session.checkpoint;
  const isSnapshot = session.state === "snapshot";
  const reached = new Map((operation?.steps ?? []).map((s) => [s.name, s]));

  return (
    <main className="page narrow">
      <nav className="breadcrumb" aria-label="Breadcrumb">
        <Link to="/">← Sessions</Link>
        <span aria-hidden="true"> / </span>
        <span aria-current="page">{session.name}</span>
      </nav>
      <section className="restore-card" aria-labelledby="restore-title" data-testid="restore">
        <div className="restore-head">
          <div>
            <p className="eyebrow">{session.name}</p>
            <h1 id="restore-title">Resume from snapshot</h1>
            <p className="muted mono small">
              session/{session.id} · {session.workloadType}
            </p>
          </div>
          <StateBadge state={lifecycle(session)} large title={stateDetail(session)} />
        </div>
        <p>
          {session.workloadType === "shell"
            ? "The snapshot is restored into a fresh runtime: the home directory, /tmp, the shell's environment, variables, functions, aliases, working directory and history, and the terminal's whole output. Running processes are not preserved."
            : "The archive is restored into a fresh runtime: the conversation, the working directory and the accumulated output."}
        </p>
        {archive || checkpoint ? (
          <dl className="facts facts-wide" data-testid="archive-facts">
            <dt>size</dt>
            <dd>
              <Size count={archive?.sizeBytes ?? checkpoint?.sizeBytes} />
            </dd>
            <dt>generation</dt>
            <dd>{archive?.generation ?? "—"}</dd>
            <dt>taken</dt>
            <dd>
              <When iso={archive?.createdAt ?? checkpoint?.createdAt} now={now} relative={false} /> ·{" "}
              <When iso={archive?.createdAt ?? checkpoint?.createdAt} now={now} />
            </dd>
            <dt>archive</dt>
            <dd className="mono small break">{archive?.uri ?? checkpoint?.ref}</dd>
            {archive?.sha256 && (
              <>
                <dt>sha-256</dt>
                <dd className="mono small break">{archive.sha256}</dd>
              </>
            )}
            <dt>contents</dt>
            <dd>
              {archive?.contents?.length ? (
                <ul className="contents" data-testid="archive-contents">
                  {archive.contents.map((c) => (
                    <li key={c}>{c}</li>
                  ))}
                </ul>
              ) : (
                "not listed"
              )}
            </dd>
            <dt>left out</dt>
            <dd data-testid="archive-skipped">
              {archive?.skipped?.length ? (
                <ul className="contents">
                  {archive.skipped.map((k) => (
                    <li key={k.path}>
                      <span className="mono small break">{k.path}</span> ({k.reason})
                    </li>
                  ))}
                </ul>
              ) : archive ? (
                "nothing: the archive holds the whole state"
              ) : (
                "not listed"
              )}
            </dd>
          </dl>
        ) : (
          <p className="muted">Snapshot metadata is not available.</p>
        )}

        {restoring && (
          <div className="progress" aria-live="polite" data-testid="restore-progress">
            <ol className="steps">
              {RESUME_STEPS.map((name, i) => {
                const step = reached.get(name);
                const current = !step && RESUME_STEPS.slice(0, i).every((n) => reached.has(n));
                return (
                  <Step
                    key={name}
                    done={!!step}
                    current={current}
                    label={stepLabel(name)}
                    detail={step ? `${step.detail} · ${time(step.at)}` : undefined}
                  />
                );
              })}
            </ol>
            <RestoreBar progress={session.restore ?? operation?.progress} />
            <p className="muted small" title={stateDetail(session)}>
              {stateSentence(session)}
            </p>
          </div>
        )}

        {error && (
          <p className="form-error" role="alert">
            {error}
          </p>
        )}
        {!isSnapshot && !restoring && (
          <p className="banner" data-testid="not-snapshot">
            <span title={stateDetail(session)}>{stateSentence(session)}</span>: there is nothing to restore.{" "}
            <Link to={sessionPath(session)}>Open it</Link>
          </p>
        )}
        <div className="actions">
          <button
            ref={restoreButton}
            type="button"
            className="btn btn-primary"
            onClick={restore}
            disabled={!isSnapshot || restoring}
            data-testid="restore-resume"
          >
            {restoring ? "Restoring…" : "Restore & resume"}
          </button>
          <button type="button" className="btn btn-danger" onClick={() => setDeleting(true)} disabled={restoring}>
            Delete session
          </button>
        </div>
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
    </main>
  );
}

/** The archive bytes streamed into the new runtime so far. */
function RestoreBar({ progress }: { progress?: RestoreProgress }) {
  if (!progress || progress.totalBytes <= 0) return null;
  const percent = Math.min(100, Math.round((progress.bytes / progress.totalBytes) * 100));
  return (
    <div className="restore-bar">
      <progress max={progress.totalBytes} value={progress.bytes} aria-label="Archive restored">
        {percent}%
      </progress>
      <span className="muted small">
        <Size count={progress.bytes} /> of <Size count={progress.totalBytes} /> · generation {progress.generation}
      </span>
    </div>
  );
}
