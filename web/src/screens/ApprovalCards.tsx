// The approval gate in the agent workspace: one card per tool call the session's credential proxy
// holds for a decision — the tool, its arguments (text, never markup), who asked, the time left,
// and Approve / Reject with an optional reason. Approvals are stored by the server, so any client
// that opens the session sees the pending ones: they are asked for again every two seconds. A
// decided one leaves the cards; the transcript shows its outcome in the turn's flow (the proxy's
// marker line, an `approval` entry), and the ones decided are one click away, collapsed.

import { useState } from "react";
import { ApiError, api } from "../api/client";
import type { Approval } from "../api/types";
import { useToast } from "../components/Toasts";
import { argumentsPreview, countdown, pendingFirstToExpire, shortApprovalId, stateView } from "../lib/approvals";
import { ago, instant } from "../lib/format";
import { useNow } from "../lib/hooks";
import { usePolling } from "../lib/polling";
import { errorText } from "../lib/sessionPorts";

const POLL_MS = 2000;

export function ApprovalCards({ id }: { id: string }) {
  const [approvals, setApprovals] = useState<Approval[]>([]);
  const [refresh, setRefresh] = useState(0);
  usePolling(
    async (signal) => {
      setApprovals(await api.approvals(id, signal));
    },
    POLL_MS,
    [id, refresh],
  );
  const pending = pendingFirstToExpire(approvals, instant);
  const decided = approvals.filter((a) => a.state !== "pending");
  const now = useNow(1000, pending.length > 0);
  if (approvals.length === 0) return null;
  return (
    <section className="approvals" aria-label="Approvals" data-testid="approvals">
      {pending.map((a) => (
        <ApprovalCard key={a.id} session={id} approval={a} now={now} onDecided={() => setRefresh((r) => r + 1)} />
      ))}
      {decided.length > 0 && (
        <details className="approvals-decided" data-testid="approvals-decided">
          <summary className="muted small">
            {decided.length} approval{decided.length === 1 ? "" : "s"} decided
          </summary>
          <ul>
            {decided.map((a) => (
              <DecidedLine key={a.id} approval={a} now={now} />
            ))}
          </ul>
        </details>
      )}
    </section>
  );
}

function ApprovalCard({
  session,
  approval: a,
  now,
  onDecided,
}: {
  session: string;
  approval: Approval;
  now: number;
  onDecided: () => void;
}) {
  const toast = useToast();
  const [reason, setReason] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const left = countdown(instant(a.expiresAt), now);
  const decide = async (decision: "approve" | "reject") => {
    setBusy(true);
    setError(undefined);
    try {
      const text = reason.trim();
      const decided = await api.decideApproval(session, a.id, text ? { decision, reason: text } : { decision });
      toast(`${a.tool}: ${stateView(decided.state).label}`, decided.state === "approved" ? "ok" : "warm");
      onDecided();
    } catch (e) {
      // Decided elsewhere meanwhile (another client, the gateway, the clock): the list says how.
      if (e instanceof ApiError && e.status === 409) onDecided();
      setError(errorText(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <article className="approval-card" data-testid="approval-card" data-approval-id={a.id}>
      <header className="approval-head">
        <span className="approval-title">
          Approve <span className="mono" data-testid="approval-tool">{a.tool}</span>?
        </span>
        <span
          className={`tag approval-countdown${left.urgent ? " approval-urgent" : ""}`}
          data-testid="approval-countdown"
          title={`expires at ${a.expiresAt}; then the call is refused`}
        >
          {left.expired ? "expired" : `expires in ${left.text}`}
        </span>
      </header>
      <pre className="mono small approval-args" data-testid="approval-arguments" tabIndex={0} aria-label="Arguments">
        {argumentsPreview(a.arguments)}
      </pre>
      <p className="muted small">
        asked for {a.requester} {ago(a.createdAt, now)} · {shortApprovalId(a.id)} ·{" "}
        <span title={a.argumentsDigest}>{a.argumentsDigest.replace(/^sha256:/, "").slice(0, 12)}</span>
      </p>
      <div className="approval-actions">
        <label className="sr-only" htmlFor={`reason-${a.id}`}>
          Reason
        </label>
        <input
          id={`reason-${a.id}`}
          data-testid="approval-reason"
          value={reason}
          placeholder="Reason (optional)"
          maxLength={500}
          onChange={(e) => setReason(e.target.value)}
        />
        <button
          type="button"
          className="btn btn-primary btn-small"
          data-testid="approval-approve"
          disabled={busy || left.expired}
          onClick={() => void decide("approve")}
        >
          Approve
        </button>
        <button
          type="button"
          className="btn btn-small btn-danger"
          data-testid="approval-reject"
          disabled={busy || left.expired}
          onClick={() => void decide("reject")}
        >
          Reject
        </button>
      </div>
      {error && (
        <p className="form-error small" role="alert">
          {error}
        </p>
      )}
    </article>
  );
}

function DecidedLine({ approval: a, now }: { approval: Approval; now: number }) {
  const view = stateView(a.state);
  return (
    <li className={`approval-line approval-${view.tone} small`}>
      <span className="mono">{a.tool}</span> {view.label}
      {a.decidedBy ? ` by ${a.decidedBy}` : ""} {ago(a.decidedAt ?? a.createdAt, now)}
      {a.reason ? `: ${a.reason}` : ""}
    </li>
  );
}
