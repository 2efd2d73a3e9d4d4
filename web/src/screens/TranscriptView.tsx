// An agent session's transcript (GET /sessions/{id}/transcript), turn by turn: the prompt, the
// answer as its pieces arrive, each tool call collapsible with its result, errors, permission
// denials, the approval gate's marker lines and the turn's usage (its tokens and its own cost; the conversation's running total goes
// to `onTotalCost`, for the workspace's header). The view opens at the newest turn and follows new
// entries while the reader is at the end; scrolling up stops that, and "Newest" goes back. Entries come over the transcript's event stream from the last
// cursor, as they are written; when the stream ends (the runtime went, the connection broke) it is
// opened again from there by the polling engine, a second later (longer after failures). Both are
// passive: they never restore a snapshot. Text is rendered as text, never as markup.

import { useEffect, useRef, useState } from "react";
import { api } from "../api/client";
import { SseParser } from "../api/sse";
import type { TranscriptEntry } from "../api/types";
import { usePolling } from "../lib/polling";
import { Size } from "../components/Human";
import { conversationCost, usd } from "../lib/cost";
import { useFollowEnd } from "../lib/follow";
import { approvalLine, stateView, withoutMarkers } from "../lib/approvals";

interface Turn {
  execution: string;
  prompt?: string;
  entries: TranscriptEntry[];
}

/** No byte for this long (the node sends a keep-alive every 15 s): the connection is dead. */
const SILENCE_MS = 45_000;

/** The page keeps at most this many entries; the session keeps them all. */
const MAX_ENTRIES = 20_000;

export function TranscriptView({
  id,
  enabled,
  onTotalCost,
}: {
  id: string;
  enabled: boolean;
  /** The conversation's cost so far (the newest usage entry's `totalCostUsd`), when known. */
  onTotalCost?: (usd: number | undefined) => void;
}) {
  const [entries, setEntries] = useState<TranscriptEntry[]>([]);
  const cursor = useRef(0);
  const { ref, following, onScroll, jump } = useFollowEnd<HTMLDivElement>(entries);
  const total = conversationCost(entries);
  useEffect(() => onTotalCost?.(total), [total, onTotalCost]);

  usePolling(
    async (signal) => {
      // A failure throws: the engine opens the stream again later, and what is shown stays. The
      // stream is this run's own connection: it is closed when the run is stopped, when the page
      // is hidden (a hidden page holds no stream open; it is reopened when it shows), and when
      // nothing at all came for a while, not even the node's keep-alive every 15 s (a connection
      // gone half-open would otherwise hold the run, and the transcript, forever).
      const connection = new AbortController();
      const close = () => connection.abort();
      const onVisibility = () => {
        if (document.visibilityState !== "visible") close();
      };
      let watchdog: ReturnType<typeof setTimeout> | undefined;
      const arm = () => {
        clearTimeout(watchdog);
        watchdog = setTimeout(close, SILENCE_MS);
      };
      signal.addEventListener("abort", close);
      document.addEventListener("visibilitychange", onVisibility);
      try {
        arm();
        const response = await api.transcriptStream(id, cursor.current, connection.signal);
        const reader = response.body?.getReader();
        if (!reader) return;
        const parser = new SseParser();
        try {
          for (;;) {
            arm();
            const { value, done } = await reader.read();
            if (done || connection.signal.aborted) return;
            // Parsed first, then shown and counted together: an entry is never counted unshown.
            const fresh: TranscriptEntry[] = [];
            let next = cursor.current;
            for (const event of parser.push(value)) {
              if (event.event !== "entry" || event.id === undefined) continue;
              fresh.push(JSON.parse(event.data) as TranscriptEntry);
              next = Number(event.id);
            }
            if (fresh.length > 0) {
              cursor.current = next;
              setEntries((all) => [...all, ...fresh].slice(-MAX_ENTRIES));
            }
          }
        } finally {
          void reader.cancel().catch(() => undefined);
        }
      } finally {
        clearTimeout(watchdog);
        signal.removeEventListener("abort", close);
        document.removeEventListener("visibilitychange", onVisibility);
      }
    },
    1000,
    [id],
    enabled,
  );

  const turns = group(entries);
  return (
    <div className="agent-transcript-frame">
      <div className="agent-transcript" data-testid="agent-transcript" ref={ref} onScroll={onScroll}>
        {turns.length === 0 ? (
          <p className="muted">No prompts yet: ask the agent below.</p>
        ) : (
          turns.map((turn) => <TurnView key={turn.execution} turn={turn} />)
        )}
      </div>
      {!following && (
        <button
          type="button"
          className="btn btn-small follow-newest"
          data-testid="transcript-newest"
          onClick={jump}
          title="Scroll to the newest turn and follow it again"
        >
          ↓ Newest
        </button>
      )}
    </div>
  );
}

function TurnView({ turn }: { turn: Turn }) {
  const parts: React.ReactNode[] = [];
  let text = "";
  const flush = (key: string) => {
    // The approval gate's marker lines are shown once, as their approval entries' lines.
    const shown = withoutMarkers(text);
    if (shown.trim()) parts.push(<p key={key} className="turn-answer">{shown}</p>);
    text = "";
  };
  const results = new Map(
    turn.entries.filter((e) => e.type === "tool-result").map((e) => [e.id ?? "", e] as const),
  );
  turn.entries.forEach((e, i) => {
    const key = `${e.seq}`;
    switch (e.type) {
      case "assistant-text":
        text += e.text ?? "";
        return;
      case "tool-call": {
        flush(`t${i}`);
        const result = results.get(e.id ?? "");
        parts.push(
          <details key={key} className="turn-tool" data-testid="tool-call">
            <summary>
              <span className="mono">{e.name}</span>{" "}
              <span className="muted small">
                {result ? (
                  result.error ? (
                    "failed"
                  ) : (
                    <>
                      ok · <Size count={result.size ?? 0} />
                    </>
                  )
                ) : (
                  "running"
                )}
              </span>
            </summary>
            <pre className="mono small">{e.input}</pre>
          </details>,
        );
        return;
      }
      case "thinking":
        flush(`t${i}`);
        parts.push(
          <p key={key} className="turn-thinking muted small">
            thinking: {e.summary}
          </p>,
        );
        return;
      case "permission-denied":
        flush(`t${i}`);
        parts.push(
          <p key={key} className="form-error small">
            {e.tool} was denied: {e.message}
          </p>,
        );
        return;
      case "error":
        flush(`t${i}`);
        parts.push(
          <p key={key} className="form-error small" data-testid="turn-error">
            {e.message}
          </p>,
        );
        return;
      case "warning":
        flush(`t${i}`);
        parts.push(
          <p key={key} className="turn-warning muted small" data-testid="turn-warning">
            warning: {e.message}
          </p>,
        );
        return;
      case "retry":
        flush(`t${i}`);
        parts.push(
          <p key={key} className="turn-retry muted small" data-testid="turn-retry">
            retrying the model call{e.status !== undefined ? ` after ${e.status}` : ""} (attempt{" "}
            {e.attempt ?? "?"}
            {e.maxAttempts !== undefined ? ` of ${e.maxAttempts}` : ""}
            {e.delayMs !== undefined ? `, in ${(e.delayMs / 1000).toFixed(1)} s` : ""})
            {e.message ? `: ${e.message}` : ""}
          </p>,
        );
        return;
      case "approval": {
        // The credential proxy's marker line: the held call, then its outcome, in the turn's flow.
        flush(`t${i}`);
        const view = stateView(e.state);
        parts.push(
          <p
            key={key}
            className={`turn-approval turn-approval-${view.tone} small`}
            data-testid="turn-approval"
            data-state={e.state}
          >
            {approvalLine(e)}
          </p>,
        );
        return;
      }
      case "usage":
        flush(`t${i}`);
        parts.push(
          <p key={key} className="turn-usage muted small" data-testid="turn-usage">
            {e.inputTokens ?? "?"} tokens in · {e.outputTokens ?? "?"} out
            {e.costUsd !== undefined && Number.isFinite(e.costUsd) && (
              <>
                {" · "}
                <span data-testid="turn-cost" title={`this turn cost $${e.costUsd} (US dollars)`}>
                  {usd(e.costUsd)} this turn
                </span>
              </>
            )}
          </p>,
        );
        return;
      case "turn-finished":
        flush(`t${i}`);
        if (e.outcome && e.outcome !== "succeeded") {
          parts.push(
            <p key={key} className="form-error small">
              the turn ended {e.outcome}
            </p>,
          );
        }
        return;
      default:
        return;
    }
  });
  flush("end");
  return (
    <section className="turn" data-testid="turn" data-execution={turn.execution}>
      <p className="turn-prompt mono">▸ {turn.prompt}</p>
      {parts}
    </section>
  );
}

function group(entries: TranscriptEntry[]): Turn[] {
  const turns: Turn[] = [];
  const byExecution = new Map<string, Turn>();
  for (const entry of entries) {
    let turn = byExecution.get(entry.execution);
    if (!turn) {
      turn = { execution: entry.execution, entries: [] };
      byExecution.set(entry.execution, turn);
      turns.push(turn);
    }
    if (entry.type === "turn-started") turn.prompt = entry.prompt;
    else turn.entries.push(entry);
  }
  return turns;
}
