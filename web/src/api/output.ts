// Follows a session's output over the SSE stream with the client obligations of the contract
// (docs/agent-protocol.md "The output stream"; the original's §4.3):
//  - an output event's id must equal String(nextOffset), its decoded length nextOffset - offset;
//  - events that end at or before the local cursor are dropped, an overlap is sliced off;
//  - an event that starts after the local cursor is a gap: reconnect from the local cursor;
//  - text is decoded with a fatal UTF-8 decoder, whose state survives reconnects (the byte stream
//    is contiguous) and is discarded on reset;
//  - reset: close, discard the decoder, read from offset 0 (POST read, which is access), replace
//    the whole transcript, continue from that read's nextOffset;
//  - a transport error or an ended stream: close, look at the session; a snapshot goes to Restore
//    (never restored from here), otherwise reconnect after min(250 ms * 2^min(n,5), 5000 ms).
// Bytes that are not UTF-8 are never shown substituted from the stream: the follower re-reads the
// transcript through POST read, whose `payload` the server decodes with visible replacements.

import type { SessionState } from "./types";
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
  /** POST read {offset:0}. */
  readAll(): Promise<{ offset: number; nextOffset: number; payload: string; payloadBase64: string }>;
  /** The session's state, or "gone" when it no longer exists for this caller. */
  state(): Promise<SessionState | "gone">;
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
export function isChanging(state: SessionState | "gone"): boolean {
  return (
    state === "provisioning" || state === "suspending" || state === "restoring" || state === "terminating"
  );
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

export class OutputFollower {
  private cursor = 0;
  private decoder = new TextDecoder("utf-8", { fatal: true });
  private readonly abort = new AbortController();
  private running = false;

  constructor(
    private readonly ports: OutputPorts,
    private readonly listener: OutputListener,
  ) {}

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
    const signal = this.abort.signal;
    while (!signal.aborted) {
      this.listener.status(first ? "connecting" : "reconnecting");
      first = false;
      const outcome = await this.connect(signal);
      if (signal.aborted || outcome.kind === "stopped") break;
      if (outcome.kind === "reset" || outcome.kind === "undecodable") {
        const done = await this.reconcile();
        if (done === "continue") {
          failures = 0;
          continue;
        }
        if (done === "stop") break;
      } else if (outcome.kind === "gap") {
        continue; // reconnect from the local cursor at once
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
      if (state === "gone" || state === "terminated") {
        this.listener.status("offline", "the session was deleted");
        this.listener.ended("the session was deleted");
        break;
      }
      if (state === "failed") {
        this.listener.status("offline", "the session failed");
        this.listener.ended("the session failed");
        break;
      }
      if (!waited) {
        const detail = outcome.kind === "failed" ? outcome.detail : undefined;
        this.listener.status("reconnecting", detail);
        await this.ports.sleep(backoff(failures), signal).catch(() => undefined);
        failures++;
      }
    }
    this.running = false;
  }

  stop(): void {
    this.abort.abort();
  }

  private async connect(signal: AbortSignal): Promise<Outcome> {
    const connection = new AbortController();
    const onAbort = () => connection.abort();
    signal.addEventListener("abort", onAbort);
    try {
      let response: Response;
      try {
        response = await this.ports.open(this.cursor, connection.signal);
      } catch {
        return signal.aborted ? { kind: "stopped" } : { kind: "failed", detail: "network error" };
      }
      if (!response.ok || !response.body) {
        const detail = await problemDetail(response);
        return { kind: "failed", detail };
      }
      this.listener.status("live");
      const reader = response.body.getReader();
      const parser = new SseParser();
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) return { kind: "failed", detail: "the stream ended" };
          for (const event of parser.push(value)) {
            const outcome = this.apply(event);
            if (outcome) return outcome;
          }
        }
      } catch {
        return signal.aborted ? { kind: "stopped" } : { kind: "failed", detail: "connection lost" };
      } finally {
        connection.abort();
      }
    } finally {
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
   * After a reset (or bytes that are not UTF-8): the whole transcript again from a read at 0.
   * A session found suspended is sent to Restore instead, since the read would restore it.
   */
  private async reconcile(): Promise<"continue" | "stop" | "failed"> {
    this.decoder = new TextDecoder("utf-8", { fatal: true });
    try {
      const state = await this.ports.state();
      if (state === "snapshot") {
        this.listener.status("offline", "the session was suspended");
        this.listener.suspended();
        return "stop";
      }
      const read = await this.ports.readAll();
      if (!isCursor(read.offset) || !isCursor(read.nextOffset) || read.nextOffset < read.offset) {
        throw new Error("invalid output cursor returned by read");
      }
      const bytes = base64Bytes(read.payloadBase64);
      if (bytes.length !== read.nextOffset - read.offset) {
        throw new Error("invalid output cursor returned by read");
      }
      let text: string;
      try {
        text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
      } catch {
        text = read.payload; // the server's decoding, malformed bytes visibly replaced
      }
      this.cursor = read.nextOffset;
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
