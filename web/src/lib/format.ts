// Human-readable numbers and times for the screens.

export function bytes(n: number | undefined): string {
  if (n === undefined || !Number.isFinite(n)) return "—";
  if (n < 1024) return `${n} B`;
  const units = ["KiB", "MiB", "GiB", "TiB"];
  let value = n / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value >= 100 ? value.toFixed(0) : value.toFixed(1)} ${units[unit]}`;
}

/** 45s, 12m 05s, 3h 07m, 2d 4h. */
export function duration(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${String(s % 60).padStart(2, "0")}s`;
  const h = Math.floor(m / 60);
  if (h < 24) return `${h}h ${String(m % 60).padStart(2, "0")}m`;
  return `${Math.floor(h / 24)}d ${h % 24}h`;
}

/** m:ss (or h:mm:ss) for countdowns. */
export function clock(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const rest = String(s % 60).padStart(2, "0");
  return h > 0 ? `${h}:${String(m).padStart(2, "0")}:${rest}` : `${m}:${rest}`;
}

/**
 * Milliseconds since the epoch of an RFC 3339 instant, or NaN. The server writes Java instants,
 * whose fraction may run to nanoseconds; the fraction is cut to milliseconds first, since
 * `Date.parse` is only required to read three digits.
 */
export function instant(iso: string | undefined): number {
  if (!iso) return NaN;
  return Date.parse(iso.replace(/(\.\d{3})\d+/, "$1"));
}

/** "just now", "40 s ago", "3 min ago", "5 h ago", "2 days ago"; "in 3 min" ahead; a local date past a week. */
export function ago(iso: string | undefined, now: number): string {
  const t = instant(iso);
  if (Number.isNaN(t)) return "—";
  const s = Math.round((now - t) / 1000);
  const phrase = spanPhrase(Math.abs(s));
  if (phrase === undefined) return dateTime(iso);
  if (phrase === "") return "just now";
  return s >= 0 ? `${phrase} ago` : `in ${phrase}`;
}

/** "" under 5 s, then "40 s", "3 min", "5 h", "2 days", undefined from a week on. */
function spanPhrase(seconds: number): string | undefined {
  if (seconds < 5) return "";
  if (seconds < 60) return `${seconds} s`;
  const m = Math.floor(seconds / 60);
  if (m < 60) return `${m} min`;
  const h = Math.floor(m / 60);
  if (h < 24) return `${h} h`;
  const d = Math.floor(h / 24);
  return d < 7 ? `${d} day${d === 1 ? "" : "s"}` : undefined;
}

/** The local time of day (hh:mm:ss). */
export function time(iso: string | undefined): string {
  const t = instant(iso);
  if (Number.isNaN(t)) return "—";
  return new Date(t).toLocaleTimeString(undefined, { hour: "2-digit", minute: "2-digit", second: "2-digit" });
}

/** The local date and time, to the minute. */
export function dateTime(iso: string | undefined): string {
  const t = instant(iso);
  if (Number.isNaN(t)) return "—";
  return new Date(t).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}

/** The local time of day when `iso` falls on the same local day as `now`, else the date and time. */
export function moment(iso: string | undefined, now: number): string {
  const t = instant(iso);
  if (Number.isNaN(t)) return "—";
  return new Date(t).toDateString() === new Date(now).toDateString() ? time(iso) : dateTime(iso);
}

/** A piece of server text: plain, an instant it names, or a count of bytes it names. */
export type TextPart =
  | { kind: "text"; text: string }
  | { kind: "instant"; iso: string }
  | { kind: "bytes"; count: number; text: string };

const INSTANT = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2})/g;
const BYTE_COUNT = /\b(\d+) bytes?\b/g;

/**
 * Splits a message the server wrote for people (an idle reason, a step's detail, a failure) at the
 * instants and byte counts in it, so that they can be shown as times and sizes: the server writes
 * them exactly (`2026-11-30T10:04:05.123456789Z`, `1048576 bytes`), which nobody reads at a glance.
 */
export function textParts(text: string): TextPart[] {
  const parts: TextPart[] = [];
  const found = [...text.matchAll(INSTANT), ...text.matchAll(BYTE_COUNT)].sort((a, b) => a.index - b.index);
  let at = 0;
  for (const match of found) {
    if (match.index < at) continue; // inside an earlier match
    if (match.index > at) parts.push({ kind: "text", text: text.slice(at, match.index) });
    parts.push(
      match[1] === undefined
        ? { kind: "instant", iso: match[0] }
        : { kind: "bytes", count: Number(match[1]), text: match[0] },
    );
    at = match.index + match[0].length;
  }
  if (at < text.length) parts.push({ kind: "text", text: text.slice(at) });
  return parts;
}

export function shortId(id: string): string {
  return id.length > 12 ? id.slice(0, 12) : id;
}

/** PLAN_RUNTIME → "Plan runtime". */
export function stepLabel(name: string): string {
  const words = name.toLowerCase().split("_");
  return words.join(" ").replace(/^./, (c) => c.toUpperCase());
}
