// Follows a session's output over the SSE stream with the client obligations of the contract
// (docs/agent-protocol.md "The output stream"; the original's §4.3):
//  - an output event's id must equal String(nextOffset), its decoded length nextOffset - offset;
//  - events that end at or before the local cursor are dropped, an overlap is sliced off;
//  - an event that starts after the local cursor is a gap: reconnect from the local cursor;
//  - text is decoded with a fatal UTF-8 decoder, whose state survives reconnects (the byte stream
//    is contiguous) and is discarded on reset;
//  - reset: close, discard the decoder, read from offset 0 page by page (POST read, which is
//    access), replace the whole transcript, continue from the end of its last whole character;
//  - a transport error or an ended stream: close, look at the session; a snapshot goes to Restore
//    (never restored from here), otherwise reconnect after min(250 ms * 2^min(n,5), 5000 ms);
//  - every reconnect that made no progress (a gap or a re-read with nothing new since the last
//    one) backs off the same way; the count starts again once a connection has proved good
//    (it advanced the cursor or stayed open past the first chunk);
//  - a stream that sends nothing for 45 s (the server's keepalive comes every 15 s) is taken as a
//    silently dropped connection: it is aborted and reconnected like any other failure.
// Bytes that are not UTF-8 are never shown substituted from the stream: the follower re-reads the
// transcript through POST read and decodes it with visible replacements (U+FFFD).

import type { Lifecycle } from "./types";
import { SseParser, type SseEvent } from "./sse";

export type StreamStatus = "connecting" | "live" | "reconnecting" | "offline";

export interface OutputListener {
  /** Text to append to the transcript. */
  append(text: string): void;
  /** The whole transcript, replacing what was shown. */
  replace(text: string): void;
  status(status: StreamStatus, detail?: string): void;
  /** The session is a snapshot now: show Restore; nothing was restored. */
  suspended(): void;
  /** The session is gone or can no longer produce output; the follower has stopped. */
  ended(reason: string): void;
}

/** What the follower needs from the outside world; tests substitute their own. */
export interface OutputPorts {
  /** Opens the stream at a cursor: the response, or throws on a network failure. */
  open(offset: number, signal: AbortSignal): Promise<Response>;
  /** POST read {offset}: at most a page of the log (the server caps a read), from offset or its head. */
  read(offset: number): Promise<{ offset: number; nextOffset: number; payload: string; payloadBase64: string }>;
  /** The session's state, or "gone" when it no longer exists for this caller. */
  state(): Promise<Lifecycle | "gone">;
  sleep(ms: number, signal: AbortSignal): Promise<void>;
}

export function backoff(failures: number): number {
  return Math.min(250 * 2 ** Math.min(failures, 5), 5000);
}

/** Decodes standard base64 strictly; throws on anything else. */
export function base64Bytes(text: string): Uint8Array {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 !== 0) {
    throw new Error("payloadBase64 is not standard base64");
  }
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** States a session passes through on its way somewhere; its stream is refused meanwhile. */
export function isChanging(state: Lifecycle | "gone"): boolean {
  return state === "provisioning" || state === "suspending" || state === "restoring" || state === "deleting";
}

/** How long a stream may stay silent before it is taken for dropped (keepalives come every 15 s). */
export const STREAM_IDLE_TIMEOUT_MS = 45_000;

/**
 * A re-read stops after this many pages; the stream carries on from wherever it got to. A read
 * answers at most 1 MiB, so this covers a shell's whole log at the default 64 MiB cap, with room
 * for what arrives meanwhile.
 */
const MAX_RECONCILE_PAGES = 80;

/**
 * How many bytes at the end of `bytes` are the valid start of a UTF-8 character that is not
 * complete yet (0 when the bytes end on a character boundary or in something malformed, which a
 * decoder replaces rather than waits on).
 */
export function partialTail(bytes: Uint8Array): number {
  for (let back = 1; back <= Math.min(3, bytes.length); back++) {
    const start = bytes.length - back;
    const lead = bytes[start];
    if ((lead & 0xc0) === 0x80) continue; // a continuation byte: look further back
    const need = lead >= 0xf0 && lead <= 0xf4 ? 4 : lead >= 0xe0 && lead < 0xf0 ? 3 : lead >= 0xc2 && lead < 0xe0 ? 2 : 1;
    if (need <= back) return 0;
    if (back >= 2) {
      // The second byte's range depends on the lead (no overlongs, surrogates or > U+10FFFF).
      const second = bytes[start + 1];
      const [lo, hi] =
        lead === 0xe0 ? [0xa0, 0xbf] : lead === 0xed ? [0x80, 0x9f] : lead === 0xf0 ? [0x90, 0xbf] : lead === 0xf4 ? [0x80, 0x8f] : [0x80, 0xbf];
      if (second < lo || second > hi) return 0;
    }
    return back;
  }
  return 0;
}

function isCursor(value: unknown): value is number {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0;
}

/** Why a connection ended, as far as the follower is concerned. */
type Outcome =
  | { kind: "reset" }
  | { kind: "gap" }
  | { kind: "undecodable" }
  | { kind: "failed"; detail: string }
  | { kind: "stopped" };

export interface FollowerOptions {
  /** How long a stream may send nothing before it is aborted and reconnected. */
  idleTimeoutMs?: number;
}

export class OutputFollower {
  private cursor = 0;
  private decoder = new TextDecoder("utf-8", { fatal: true });
  private readonly abort = new AbortController();
  private readonly idleTimeoutMs: number;
  private running = false;

  constructor(
    private readonly ports: OutputPorts,
    private readonly listener: OutputListener,
    options: FollowerOptions = {},
  ) {
    this.idleTimeoutMs = options.idleTimeoutMs ?? STREAM_IDLE_TIMEOUT_MS;
  }

  /** The byte offset up to which output has been shown. */
  get offset(): number {
    return this.cursor;
  }

  /** Streams from offset 0 until stop(), a snapshot or the session's end. */
  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    let failures = 0;
    let first = true;
    /** The cursor right after the last re-read: a re-read again from there made no progress. */
    let reconciledAt: number | undefined;
    const signal = this.abort.signal;
    const pause = async (detail?: string) => {
      this.listener.status("reconnecting", detail);
      await this.ports.sleep(backoff(failures), signal).catch(() => undefined);
      failures++;
    };
    while (!signal.aborted) {
      this.listener.status(first ? "connecting" : "reconnecting");
      first = false;
      const before = this.cursor;
      const { outcome, proved } = await this.connect(signal);
      if (signal.aborted || outcome.kind === "stopped") break;
      const progressed = this.cursor !== before;
      // A connection that delivered output or stayed up past its first chunk was a good one.
      if (progressed || proved) failures = 0;
      if (outcome.kind === "reset" || outcome.kind === "undecodable") {
        // Nothing new since the last re-read: reading again at once would only loop.
        if (reconciledAt === this.cursor) await pause();
        if (signal.aborted) break;
        const done = await this.reconcile(signal);
        if (done === "continue") {
          reconciledAt = this.cursor;
          continue;
        }
        if (done === "stop") break;
      } else if (outcome.kind === "gap") {
        // Reconnect from the local cursor: at once when this connection moved it, else back off.
        if (!progressed) await pause("the stream skipped ahead");
        continue;
      }
      // A failure (or a stream that ended): what became of the session decides. While it is
      // changing (suspending, restoring…) the stream would only be refused, so wait it out.
      let waited = false;
      let state = await this.ports.state().catch(() => undefined);
      while (!signal.aborted && state !== undefined && isChanging(state)) {
        this.listener.status("reconnecting", `the session is ${state}`);
        await this.ports.sleep(backoff(failures++), signal).catch(() => undefined);
        waited = true;
        state = await this.ports.state().catch(() => undefined);
      }
      if (signal.aborted) break;
      if (state === "snapshot") {
        this.listener.status("offline", "the session was suspended");
        this.listener.suspended();
        break;
      }
      if (state === "gone" || state === "deleted") {
        this.listener.status("offline", "the session was deleted");
        this.listener.ended("the session was deleted");
        break;
      }
      if (state === "failed") {
        this.listener.status("offline", "the session failed");
        this.listener.ended("the session failed");
        break;
      }
      if (!waited) await pause(outcome.kind === "failed" ? outcome.detail : undefined);
    }
    this.running = false;
  }

  stop(): void {
    this.abort.abort();
  }

  private async connect(signal: AbortSignal): Promise<{ outcome: Outcome; proved: boolean }> {
    const connection = new AbortController();
    let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
    // Aborting the fetch errors its body; cancelling the reader as well ends a read on any body.
    const close = () => {
      connection.abort();
      reader?.cancel().catch(() => undefined);
    };
    const onAbort = close;
    signal.addEventListener("abort", onAbort);
    // The watchdog: no bytes at all (not even a keepalive comment) for a while is a dead connection.
    let silent = false;
    let watchdog: ReturnType<typeof setTimeout> | undefined;
    const arm = () => {
      clearTimeout(watchdog);
      watchdog = setTimeout(() => {
        silent = true;
        close();
      }, this.idleTimeoutMs);
    };
    // Chunks taken in whole without ending the connection: past the first, the connection is good.
    let chunks = 0;
    const result = (outcome: Outcome) => ({ outcome, proved: chunks > 1 });
    const lost = () =>
      signal.aborted
        ? { kind: "stopped" as const }
        : {
            kind: "failed" as const,
            detail: silent ? `no data for ${Math.round(this.idleTimeoutMs / 1000)} s` : "connection lost",
          };
    arm();
    try {
      let response: Response;
      try {
        response = await this.ports.open(this.cursor, connection.signal);
      } catch {
        return result(signal.aborted ? { kind: "stopped" } : silent ? lost() : { kind: "failed", detail: "network error" });
      }
      if (!response.ok || !response.body) {
        clearTimeout(watchdog);
        const detail = await problemDetail(response);
        return result({ kind: "failed", detail });
      }
      this.listener.status("live");
      reader = response.body.getReader();
      if (silent || signal.aborted) close();
      const parser = new SseParser();
      try {
        for (;;) {
          arm();
          const { value, done } = await reader.read();
          if (done) return result(silent || signal.aborted ? lost() : { kind: "failed", detail: "the stream ended" });
          for (const event of parser.push(value)) {
            const outcome = this.apply(event);
            if (outcome) return result(outcome);
          }
          chunks++;
        }
      } catch {
        return result(lost());
      } finally {
        close();
      }
    } finally {
      clearTimeout(watchdog);
      signal.removeEventListener("abort", onAbort);
    }
  }

  /** Applies one event; answers an outcome when the connection must end. */
  private apply(event: SseEvent): Outcome | undefined {
    if (event.event === "reset") {
      return { kind: "reset" };
    }
    if (event.event !== "output") return undefined;
    let data: { offset?: unknown; nextOffset?: unknown; payloadBase64?: unknown };
    try {
      data = JSON.parse(event.data) as typeof data;
    } catch {
      return { kind: "failed", detail: "invalid output event: data is not JSON" };
    }
    const { offset, nextOffset, payloadBase64 } = data;
    if (!isCursor(offset) || !isCursor(nextOffset) || nextOffset < offset) {
      return { kind: "failed", detail: "invalid output event: bad offsets" };
    }
    if (event.id !== String(nextOffset)) {
      return { kind: "failed", detail: "invalid output event: id is not nextOffset" };
    }
    if (typeof payloadBase64 !== "string") {
      return { kind: "failed", detail: "invalid output event: no payload" };
    }
    let bytes: Uint8Array;
    try {
      bytes = base64Bytes(payloadBase64);
    } catch {
      return { kind: "failed", detail: "invalid output event: payload is not base64" };
    }
    if (bytes.length !== nextOffset - offset) {
      return { kind: "failed", detail: "invalid output event: length is not nextOffset - offset" };
    }
    if (nextOffset <= this.cursor) return undefined; // already shown
    if (offset > this.cursor) return { kind: "gap" };
    const fresh = bytes.subarray(this.cursor - offset);
    let text: string;
    try {
      text = this.decoder.decode(fresh, { stream: true });
    } catch {
      return { kind: "undecodable" };
    }
    this.cursor = nextOffset;
    if (text) this.listener.append(text);
    return undefined;
  }

  /**
   * After a reset (or bytes that are not UTF-8): the whole transcript again, read page by page
   * from offset 0 (malformed bytes visibly replaced). A read is capped without regard to UTF-8,
   * so a character cut at the end of a page is carried into the next one; the cursor only ever
   * moves past whole characters, and the stream resumes at the start of one that is still
   * incomplete. A session found suspended is sent to Restore instead, since the read would
   * restore it.
   */
  private async reconcile(signal: AbortSignal): Promise<"continue" | "stop" | "failed"> {
    this.decoder = new TextDecoder("utf-8", { fatal: true });
    try {
      const state = await this.ports.state();
      if (state === "snapshot") {
        this.listener.status("offline", "the session was suspended");
        this.listener.suspended();
        return "stop";
      }
      let decoder = new TextDecoder("utf-8"); // replaces malformed bytes with U+FFFD
      let text = "";
      let carry: Uint8Array<ArrayBufferLike> = new Uint8Array(0); // an incomplete character's bytes so far
      let at = 0; // where the next page is asked from (past the carried bytes)
      for (let page = 0; page < MAX_RECONCILE_PAGES; page++) {
        if (signal.aborted) return "stop";
        const read = await this.ports.read(at);
        if (!isCursor(read.offset) || !isCursor(read.nextOffset) || read.nextOffset < read.offset) {
          throw new Error("invalid output cursor returned by read");
        }
        const bytes = base64Bytes(read.payloadBase64);
        if (bytes.length !== read.nextOffset - read.offset) {
          throw new Error("invalid output cursor returned by read");
        }
        if (page > 0 && read.offset !== at) {
          // The log's head moved past what was read so far: what is left starts over.
          decoder = new TextDecoder("utf-8");
          text = "";
          carry = new Uint8Array(0);
        }
        if (bytes.length === 0) {
          at = read.nextOffset; // a cursor past the end answers the end
          break;
        }
        const joined = new Uint8Array(carry.length + bytes.length);
        joined.set(carry);
        joined.set(bytes, carry.length);
        const tail = partialTail(joined);
        text += decoder.decode(joined.subarray(0, joined.length - tail), { stream: true });
        carry = joined.slice(joined.length - tail);
        at = read.nextOffset;
      }
      text += decoder.decode();
      this.cursor = at - carry.length;
      this.listener.replace(text);
      return "continue";
    } catch (e) {
      this.listener.status("reconnecting", e instanceof Error ? e.message : String(e));
      return "failed";
    }
  }
}

async function problemDetail(response: Response): Promise<string> {
  try {
    const body = (await response.json()) as { detail?: string; title?: string };
    return body.detail ?? body.title ?? `HTTP ${response.status}`;
  } catch {
    return `HTTP ${response.status}`;
  }
}
