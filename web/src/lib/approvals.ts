// The pure side of the approval gate's screens: an approval's state as people read it, the time a
// pending one has left, the console's badge, and the transcript's `approval` entries (the markers
// the credential proxy writes into the agent's answer: `[berth: awaiting approval — <tool> · <id>]`,
// then one result line), so that the components only render.

import { clock } from "./format";

/** A stored approval's state (GET /sessions/{id}/approvals). */
export type ApprovalState = "pending" | "approved" | "rejected" | "expired" | "cancelled";

/**
 * A transcript `approval` entry's state: the stored states, and the ones only the proxy knows
 * (its own timeout, the gateway failing).
 */
export type MarkerState = ApprovalState | "timed_out" | "error";

/** How a state reads: its words, and the tone the screen gives it. */
export interface StateView {
  label: string;
  tone: "waiting" | "ok" | "refused" | "ended";
}

const STATES: Record<MarkerState, StateView> = {
  pending: { label: "awaiting approval", tone: "waiting" },
  approved: { label: "approved", tone: "ok" },
  rejected: { label: "rejected", tone: "refused" },
  expired: { label: "expired", tone: "ended" },
  cancelled: { label: "cancelled", tone: "ended" },
  timed_out: { label: "timed out", tone: "ended" },
  error: { label: "gateway error", tone: "refused" },
};

/** A state as people read it; a state this UI does not know yet is shown as it came. */
export function stateView(state: string | undefined): StateView {
  // An own key only: a state named like an object's member (`toString`) is just an unknown one.
  if (state && Object.hasOwn(STATES, state)) return STATES[state as MarkerState];
  return { label: state || "unknown", tone: "ended" };
}

/** The time a pending approval has left, for its countdown. */
export interface Countdown {
  /** `9:58`, `0:04`; `expired` once the time is up. */
  text: string;
  /** Under a minute left: the screen says so louder. */
  urgent: boolean;
  expired: boolean;
}

/** The countdown to `expiresAt` (epoch ms) at `now`; NaN (an unreadable instant) reads as unknown. */
export function countdown(expiresAt: number, now: number): Countdown {
  if (Number.isNaN(expiresAt)) return { text: "—", urgent: false, expired: false };
  const left = expiresAt - now;
  if (left <= 0) return { text: "expired", urgent: true, expired: true };
  return { text: clock(left), urgent: left < 60_000, expired: false };
}

/** The console card's badge: undefined without pending approvals, else "1 approval waiting". */
export function pendingBadge(count: number | undefined): string | undefined {
  if (!count || count <= 0 || !Number.isFinite(count)) return undefined;
  return `${count} approval${count === 1 ? "" : "s"} waiting`;
}

/** The request part of `<session>:<request>`, cut to what tells approvals apart at a glance. */
export function shortApprovalId(id: string | undefined): string {
  if (!id) return "?";
  const request = id.includes(":") ? id.slice(id.lastIndexOf(":") + 1) : id;
  return request.slice(0, 8);
}

/** Pending approvals, the one to expire first first; the others are the transcript's to show. */
export function pendingFirstToExpire<T extends { state: string; expiresAt: string }>(
  approvals: readonly T[],
  instant: (iso: string) => number,
): T[] {
  return approvals
    .filter((a) => a.state === "pending")
    .sort((a, b) => instant(a.expiresAt) - instant(b.expiresAt));
}

/**
 * A transcript `approval` entry as one line: `approved — Bash · 1a2b3c4d: why`, or
 * `awaiting approval — Bash · 1a2b3c4d` while it is held.
 */
export function approvalLine(entry: { tool?: string; state?: string; approvalId?: string; reason?: string }): string {
  const view = stateView(entry.state);
  const reason = entry.reason ? `: ${entry.reason}` : "";
  return `${view.label} — ${entry.tool || "a tool"} · ${shortApprovalId(entry.approvalId)}${reason}`;
}

/**
 * The arguments as the card shows them: the server's JSON text indented when it reads as JSON (a
 * cut one does not, and is shown as it came). Text, never markup: the card renders it as such.
 */
export function argumentsPreview(text: string | undefined): string {
  if (!text) return "(no arguments)";
  let shown: string;
  try {
    shown = JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    shown = text;
  }
  return visible(shown);
}

/**
 * Control and format characters (bidirectional overrides, zero-width ones) written as escapes: an
 * approver must see what would run, not what such characters make it look like.
 */
export function visible(text: string): string {
  return text.replace(/[\p{Cc}\p{Cf}]/gu, (c) =>
    c === "\n" || c === "\t" ? c : `\\u{${c.codePointAt(0)!.toString(16).padStart(4, "0")}}`,
  );
}

/**
 * The proxy's marker lines as the agent's transcript spells them (its ApprovalMarkers): each also
 * makes an `approval` entry, which the turn shows as its own line, so the answer's text leaves them
 * out rather than show each twice (the raw output keeps them).
 */
const MARKER_LINE =
  /^\[berth: (?:awaiting approval|approved|tool call (?:rejected|expired|timed out|cancelled|gateway error)) — .+? · [^\s\]]+:[0-9a-f]{32}(?:: [^\]]*)?\][ \t]*(?:\r?\n|$)/gm;

/** An answer's text without the approval gate's marker lines. */
export function withoutMarkers(text: string): string {
  return text.replace(MARKER_LINE, "");
}
