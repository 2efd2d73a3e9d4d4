// The agent workspace (`/agent/:id`): for an agent session its transcript turn by turn
// (TranscriptView, which follows the newest turn) with the conversation's cost in the header, and
// the tool calls waiting for an approval (ApprovalCards), the live output followed over SSE with the contract's client obligations (api/output.ts) — for
// an agent behind a closed "raw output" disclosure, since the transcript already shows the
// answers; for a shell as the main pane — a prompt box whose submissions go one at a time, and the session's executions —
// its prompts — each cancellable while it waits or runs. Any session type can be opened here; a
// shell shows its output only.

import { useCallback, useEffect, useRef, useState } from "react";
import { api } from "../api/client";
import { OutputFollower, type StreamStatus } from "../api/output";
import type { Execution, Session } from "../api/types";
import { useToast } from "../components/Toasts";
import { plainText } from "../lib/ansi";
import { usd } from "../lib/cost";
import { type FollowEnd, useFollowEnd } from "../lib/follow";
import { time } from "../lib/format";
import { usePolling } from "../lib/polling";
import { useRouter } from "../lib/router";
import { errorText, outputPorts } from "../lib/sessionPorts";
import { ApprovalCards } from "./ApprovalCards";
import { LoadState, WorkspaceHeader } from "./Common";
import { SessionPanel } from "./SessionPanel";
import { TranscriptView } from "./TranscriptView";
import { useSession } from "./useSession";
import { lifecycle } from "../api/types";

/** Transcripts are kept to their last 2 MiB of text in the page; the log keeps everything. */
const MAX_TRANSCRIPT = 2 * 1024 * 1024;

interface Submission {
  id: number;
  text: string;
  state: "pending" | "sending" | "sent" | "failed";
  error?: string;
  at: number;
}

export function AgentWorkspace({ id }: { id: string }) {
  const [load] = useSession(id);
  const { navigate } = useRouter();
  const toast = useToast();
  const [transcript, setTranscript] = useState("");
  const [stream, setStream] = useState<{ status: StreamStatus; detail?: string }>({ status: "connecting" });
  const [submissions, setSubmissions] = useState<Submission[]>([]);
  const [prompt, setPrompt] = useState("");
  const [executions, setExecutions] = useState<Execution[]>([]);
  const [ownSnapshot, setOwnSnapshot] = useState(false);
  const [followKey, setFollowKey] = useState(0);
  const follower = useRef<OutputFollower>(undefined);
  const nextId = useRef(1);
  const sending = useRef(false);
  const [rawOpen, setRawOpen] = useState(false);
  const [totalCost, setTotalCost] = useState<number>();
  const onTotalCost = useCallback((cost: number | undefined) => setTotalCost(cost), []);
  // The raw pane follows its end too; opening it counts as new content, so it opens at the end.
  const raw = useFollowEnd<HTMLPreElement>(transcript, rawOpen);

  const state = load.kind === "ready" ? lifecycle(load.session) : undefined;
  const hasRuntime = load.kind === "ready" && !!load.session.pod && state !== "snapshot" && state !== "restoring";
  useEffect(() => {
    if (state === "snapshot" && !ownSnapshot) navigate(`/restore/${encodeURIComponent(id)}`, { replace: true });
  }, [state, id, navigate, ownSnapshot]);

  useEffect(() => {
    if (!hasRuntime) return;
    // A new follower reads from offset 0: what an earlier one showed goes, or it would be shown
    // twice. Whatever a stopped follower still delivers is dropped for the same reason.
    setTranscript("");
    let current = true;
    const f = new OutputFollower(outputPorts(id), {
      append: (text) => current && setTranscript((t) => trim(t + text)),
      replace: (text) => current && setTranscript(trim(text)),
      status: (status, detail) => current && setStream({ status, detail }),
      suspended: () => {
        if (!current) return;
        toast("The session was suspended", "frozen");
        navigate(`/restore/${encodeURIComponent(id)}`, { replace: true });
      },
      ended: (reason) => current && setStream({ status: "offline", detail: reason }),
    });
    follower.current = f;
    void f.start();
    return () => {
      current = false;
      f.stop();
      follower.current = undefined;
    };
  }, [id, hasRuntime, followKey, toast, navigate]);

  usePolling(
    async (signal) => {
      try {
        setExecutions(await api.executions(id, signal));
      } catch {
        // the list shown stays; it is asked for again at the usual pace
      }
    },
    3000,
    [id],
  );

  const session = load.kind === "ready" ? load.session : undefined;

  // Submissions go one at a time, in order: the next is sent only once the previous was accepted.
  useEffect(() => {
    if (sending.current || !session) return;
    const next = submissions.find((s) => s.state === "pending");
    if (!next) return;
    sending.current = true;
    setSubmissions((all) => all.map((s) => (s.id === next.id ? { ...s, state: "sending" } : s)));
    // A shell runs a line when it gets its newline; an agent takes the prompt as it is.
    const payload = session.workloadType === "shell" ? `${next.text}\n` : next.text;
    api.write(id, payload).then(
      () => {
        sending.current = false;
        setSubmissions((all) => all.map((s) => (s.id === next.id ? { ...s, state: "sent" } : s)));
      },
      (e) => {
        sending.current = false;
        setSubmissions((all) =>
          all.map((s) => (s.id === next.id ? { ...s, state: "failed", error: errorText(e) } : s)),
        );
      },
    );
  }, [submissions, id, session]);

  if (load.kind !== "ready" || !session) return <LoadState load={load as Exclude<typeof load, { kind: "ready" }>} />;

  const pending = submissions.filter((s) => s.state === "pending" || s.state === "sending").length;
  // An agent session has a transcript; any other shows its byte stream only.
  const isAgent = session.workloadType !== "shell";
  const cancel = (execution: string) =>
    api.cancel(id, execution).then(
      (x) => setExecutions((all) => all.map((e) => (e.id === x.id ? x : e))),
      (e) => toast(`Cancel failed: ${errorText(e)}`, "error"),
    );
  const submit = (event?: React.FormEvent) => {
    event?.preventDefault();
    const text = prompt.trim();
    if (!text) return;
    setSubmissions((all) => [...all.slice(-49), { id: nextId.current++, text, state: "pending", at: Date.now() }]);
    setPrompt("");
  };

  return (
    <main className="workspace">
      <div className="ws-main">
        <WorkspaceHeader
          session={session}
          extra={`model=${session.model ?? "platform default"}`}
          aside={
            isAgent && totalCost !== undefined ? (
              <span
                className="tag conversation-cost"
                data-testid="conversation-cost"
                title={`the conversation so far: $${totalCost} (US dollars), every turn included`}
              >
                {usd(totalCost)} so far
              </span>
            ) : undefined
          }
        />
        <div className="console-bar">
          <span className="console-label">{isAgent ? "transcript" : "output"}</span>
          <span className={`tag tag-stream-${stream.status}`} data-testid="ws-stream-status" title={stream.detail}>
            output {stream.status}
            {stream.detail && stream.status !== "live" ? ` — ${stream.detail}` : ""}
          </span>
          <span className="spacer" />
          <button
            type="button"
            className="btn btn-small"
            onClick={() => setFollowKey((k) => k + 1)}
            title={isAgent ? "Read the raw output again from the start" : "Read the output again from the start"}
          >
            Re-read
          </button>
        </div>
        {isAgent && <TranscriptView key={id} id={id} enabled={hasRuntime} onTotalCost={onTotalCost} />}
        {isAgent && <ApprovalCards key={`approvals-${id}`} id={id} />}
        {isAgent ? (
          // The transcript shows the answers already: the byte stream they came from (the CLI's
          // own rendering, stderr, the platform's markers) is there for whoever wants it, closed.
          <details
            className="raw-output"
            data-testid="raw-output"
            open={rawOpen}
            onToggle={(e) => setRawOpen(e.currentTarget.open)}
          >
            <summary>
              raw output{" "}
              <span className="muted small">— the session's byte stream: the CLI's own rendering, stderr, the platform's notes</span>
            </summary>
            {rawOpen ? <RawOutput raw={raw} text={transcript} live /> : null}
          </details>
        ) : (
          <RawOutput raw={raw} text={transcript} />
        )}
        <form className="prompt" onSubmit={submit}>
          <label htmlFor="prompt" className="sr-only">
            Prompt
          </label>
          <span className="prompt-mark" aria-hidden="true">
            ▸
          </span>
          <textarea
            id="prompt"
            data-testid="ws-prompt"
            value={prompt}
            rows={2}
            placeholder={session.workloadType === "shell" ? "A command line for the shell" : "Ask the agent…"}
            onChange={(e) => setPrompt(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === "Enter" && !e.shiftKey) {
                e.preventDefault();
                submit();
              }
            }}
          />
          <button type="submit" className="btn btn-primary" disabled={!prompt.trim()} data-testid="ws-send">
            Send
          </button>
        </form>
        <p className="muted small" aria-live="polite" data-testid="pending">
          {pending > 0 ? `${pending} submission${pending === 1 ? "" : "s"} pending` : "Enter sends, Shift+Enter adds a line."}
        </p>
      </div>
      <SessionPanel
        session={session}
        hooks={{
          beforeSnapshot: () => {
            setOwnSnapshot(true);
            follower.current?.stop();
          },
          snapshotFailed: () => {
            setOwnSnapshot(false);
            setFollowKey((k) => k + 1);
          },
        }}
      >
        {isAgent && (session.plugins?.length ?? 0) > 0 && (
          <PluginsSection id={id} plugins={session.plugins ?? []} />
        )}
        <section className="panel-section">
          <h2 className="panel-title">Submissions</h2>
          {submissions.length === 0 ? (
            <p className="muted">None yet.</p>
          ) : (
            <ol className="submissions" data-testid="submissions">
              {[...submissions].reverse().map((s) => (
                <li key={s.id} className={`submission submission-${s.state}`}>
                  <span className="mono">▸ {s.text}</span>
                  <span className="muted small">
                    {s.state} · {time(new Date(s.at).toISOString())}
                  </span>
                  {s.error && <span className="form-error small">not retried: {s.error}</span>}
                </li>
              ))}
            </ol>
          )}
        </section>
        <section className="panel-section">
          <h2 className="panel-title">Executions</h2>
          {executions.length === 0 ? (
            <p className="muted">No executions.</p>
          ) : (
            <ol className="executions" data-testid="executions">
              {executions.map((x) => (
                <li key={x.id} className="execution" data-execution-state={x.state}>
                  <span className="mono">{x.command}</span>
                  <span className={`exec-state exec-${x.state.toLowerCase()}`}>
                    {x.state.toLowerCase()}
                    {x.exitCode !== undefined ? ` · exit ${x.exitCode}` : ""}
                    {x.timedOut ? " · timed out" : ""}
                  </span>
                  <span className="muted small">
                    {time(x.submittedAt)}
                    {x.finishedAt ? ` → ${time(x.finishedAt)}` : ""}
                  </span>
                  {(x.state === "QUEUED" || x.state === "RUNNING") && (
                    <button
                      type="button"
                      className="btn btn-small"
                      data-testid="execution-cancel"
                      onClick={() => void cancel(x.id)}
                    >
                      Cancel
                    </button>
                  )}
                </li>
              ))}
            </ol>
          )}
        </section>
      </SessionPanel>
    </main>
  );
}

/** The session's output as text, following its end while the reader is there. */
function RawOutput({
  raw,
  text,
  live = false,
}: {
  raw: FollowEnd<HTMLPreElement>;
  text: string;
  live?: boolean;
}) {
  return (
    <pre
      ref={raw.ref}
      className={live ? "transcript transcript-live" : "transcript"}
      data-testid="transcript"
      tabIndex={0}
      aria-label={live ? "Raw output" : "Output"}
      aria-live="off"
      onScroll={raw.onScroll}
    >
      {text ? plainText(text) : "// ready — output streams here as the session produces it"}
    </pre>
  );
}

function trim(text: string): string {
  return text.length > MAX_TRANSCRIPT ? text.slice(text.length - MAX_TRANSCRIPT) : text;
}

export type { Session };

/**
 * The session's plugins and the "Refresh plugin skills" button: the marketplace's plugins as they
 * are now replace the session's copies, between prompts, keeping the conversation. Nothing
 * refreshes by itself.
 */
function PluginsSection({ id, plugins }: { id: string; plugins: string[] }) {
  const toast = useToast();
  const [refreshing, setRefreshing] = useState(false);
  const [error, setError] = useState<string>();
  const refresh = async () => {
    setRefreshing(true);
    setError(undefined);
    try {
      const result = await api.refreshPlugins(id);
      toast(`Plugins refreshed: ${result.plugins.join(", ")}`);
    } catch (e) {
      setError(`Refresh failed: ${errorText(e)}`);
    } finally {
      setRefreshing(false);
    }
  };
  return (
    <section className="panel-section">
      <h2 className="panel-title">Plugins</h2>
      <ul className="plugins" data-testid="plugins">
        {plugins.map((p) => (
          <li key={p} className="mono">
            {p}
          </li>
        ))}
      </ul>
      <button
        type="button"
        className="btn btn-small"
        data-testid="plugins-refresh"
        disabled={refreshing}
        onClick={() => void refresh()}
        title="Take the marketplace's plugins as they are now; the conversation is kept"
      >
        {refreshing ? "Refreshing…" : "Refresh plugin skills"}
      </button>
      {error && (
        <p className="form-error small" role="alert">
          {error}
        </p>
      )}
    </section>
  );
}
