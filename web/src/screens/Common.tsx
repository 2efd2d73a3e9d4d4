import type { Session } from "../api/types";
import { StateBadge } from "../components/StateBadge";
import { Link } from "../lib/router";
import type { SessionLoad } from "./useSession";
import { lifecycle } from "../api/types";
import { stateDetail } from "../lib/describe";

export function WorkspaceHeader({
  session,
  extra,
  aside,
}: {
  session: Session;
  extra?: string;
  /** Shown beside the state badge: e.g. what an agent conversation cost so far. */
  aside?: React.ReactNode;
}) {
  return (
    <header className="ws-header">
      <nav className="breadcrumb" aria-label="Breadcrumb">
        <Link to="/">← Sessions</Link>
        <span aria-hidden="true"> / </span>
        <span aria-current="page">{session.name}</span>
      </nav>
      <div className="ws-title">
        <h1 data-testid="ws-name">{session.name}</h1>
        <StateBadge state={lifecycle(session)} title={stateDetail(session)} />
        {aside}
      </div>
      <p className="muted mono small">
        session/{session.id}
        {session.pod ? ` · runtime/${session.pod}` : " · runtime reclaimed"} · workloadType={session.workloadType}
        {extra ? ` · ${extra}` : ""}
      </p>
    </header>
  );
}

/** Loading, not found and error screens shared by the session routes. */
export function LoadState({ load }: { load: Exclude<SessionLoad, { kind: "ready" }> }) {
  if (load.kind === "loading") {
    return (
      <main className="page">
        <p className="placeholder" aria-busy="true">
          Loading session…
        </p>
      </main>
    );
  }
  return (
    <main className="page">
      <div className="placeholder placeholder-error" role="alert">
        <h1>{load.kind === "missing" ? "Session not found" : "Could not load the session"}</h1>
        <p>
          {load.kind === "missing"
            ? "It was deleted, or it belongs to someone else."
            : `The server said: ${load.error}`}
        </p>
        <Link to="/" className="btn">
          Back to sessions
        </Link>
      </div>
    </main>
  );
}
