// The shell workspace (`/session/:id`): the terminal and the session panel. A snapshot session is
// sent to Restore (attaching never restores); so is one that gets suspended while it is open.

import { useEffect, useRef, useState } from "react";
import { LoadState, WorkspaceHeader } from "./Common";
import { SessionPanel } from "./SessionPanel";
import { useSession } from "./useSession";
import { Terminal, type TerminalHandle } from "../terminal/Terminal";
import type { AttachStatus } from "../terminal/attach";
import { useRouter } from "../lib/router";
import { useToast } from "../components/Toasts";
import { lifecycle } from "../api/types";
import { stateDetail, stateSentence } from "../lib/describe";

const STATUS_TEXT: Record<AttachStatus, string> = {
  connecting: "connecting",
  attached: "shell attached",
  reconnecting: "reconnecting",
  closed: "detached",
};

export function ShellWorkspace({ id }: { id: string }) {
  const [load] = useSession(id);
  const { navigate } = useRouter();
  const toast = useToast();
  const [status, setStatus] = useState<{ status: AttachStatus; detail?: string }>({ status: "connecting" });
  const [ended, setEnded] = useState<string>();
  const handle = useRef<TerminalHandle>(undefined);
  // While our own "Snapshot now" runs, the panel decides where to go afterwards (the console).
  const [ownSnapshot, setOwnSnapshot] = useState(false);

  const state = load.kind === "ready" ? lifecycle(load.session) : undefined;
  useEffect(() => {
    if (state === "snapshot" && !ownSnapshot) navigate(`/restore/${encodeURIComponent(id)}`, { replace: true });
  }, [state, id, navigate, ownSnapshot]);

  if (load.kind !== "ready") return <LoadState load={load} />;
  const session = load.session;
  const attachable = !!session.pod && state !== "snapshot" && state !== "restoring" && state !== "deleted";

  return (
    <main className="workspace">
      <div className="ws-main">
        <WorkspaceHeader session={session} />
        <div className="console-bar">
          <span className="console-label">terminal</span>
          <span className={`tag tag-${status.status}`} data-testid="terminal-status" title={status.detail}>
            {STATUS_TEXT[status.status]}
            {status.detail ? ` — ${status.detail}` : ""}
          </span>
          <span className="spacer" />
          <button type="button" className="btn btn-small" onClick={() => handle.current?.term.focus()}>
            Focus terminal
          </button>
        </div>
        {ended ? (
          <div className="placeholder placeholder-error" role="alert">
            <p>The terminal closed: {ended}.</p>
          </div>
        ) : attachable ? (
          <Terminal
            sessionId={id}
            onReady={(h) => (handle.current = h)}
            onStatus={(s, detail) => setStatus({ status: s, detail })}
            onSuspended={() => {
              toast(`Session "${session.name}" was suspended`, "frozen");
              navigate(`/restore/${encodeURIComponent(id)}`, { replace: true });
            }}
            onEnded={(reason) => setEnded(reason)}
          />
        ) : (
          <div className="placeholder">
            <p title={stateDetail(session)}>
              The session has no running shell ({stateSentence(session).toLowerCase()}); the terminal opens when it
              has one.
            </p>
          </div>
        )}
        {load.error && <p className="banner banner-warn">Could not refresh the session: {load.error}</p>}
      </div>
      <SessionPanel
        session={session}
        hooks={{
          beforeSnapshot: () => {
            setOwnSnapshot(true);
            handle.current?.connection.stop();
          },
          snapshotFailed: () => {
            setOwnSnapshot(false);
            handle.current?.connection.start();
          },
        }}
      />
    </main>
  );
}
