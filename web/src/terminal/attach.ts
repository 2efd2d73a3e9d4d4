// The shell's terminal over GET /api/v1/sessions/{id}/attach (a WebSocket relayed to the agent):
// binary frames out are the output from the cursor, binary frames in are keystrokes, text frames
// carry resize requests in and `attached`/`reset`/`error` notices out (docs/agent-protocol.md).
//
// The connection keeps the byte cursor of what it has written to the terminal. Entering starts at
// offset 0, so the whole scrollback replays; after a network drop it reconnects from its cursor,
// so nothing is lost or shown twice. A close is followed by a look at the session: a snapshot goes
// to Restore (attaching is passive and never restores), a deleted session ends the terminal.

import type { Lifecycle } from "../api/types";
import { backoff, isChanging } from "../api/output";

export type AttachStatus = "connecting" | "attached" | "reconnecting" | "closed";

export interface AttachListener {
  output(bytes: Uint8Array): void;
  status(status: AttachStatus, detail?: string): void;
  /** The cursor jumped (output before it was dropped from the log). */
  reset(nextOffset: number): void;
  /** An input or resize the agent refused. */
  refused(message: string): void;
  /**
   * Attached at `offset`; the output up to `live` is replay (the agent neutralised the terminal
   * queries in it).
   */
  replay?(offset: number, live: number): void;
  /** The shell exited; the session stays active and the next key starts a new shell. */
  shellExited(status: number): void;
  suspended(): void;
  ended(reason: string): void;
}

export interface AttachPorts {
  url(offset: number): string;
  state(): Promise<Lifecycle | "gone">;
}

/** Input frames are at most 64 KiB (the agent's limit); a larger paste goes in pieces. */
const MAX_FRAME = 64 * 1024;

/** Keystrokes typed while (re)connecting are kept up to this many bytes and sent once attached. */
const MAX_PENDING = 4 * 1024;

export class AttachConnection {
  private socket: WebSocket | undefined;
  private cursor = 0;
  private failures = 0;
  private stopped = false;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private size: { cols: number; rows: number } | undefined;
  private pending: Uint8Array<ArrayBuffer>[] = [];
  private pendingBytes = 0;
  /** Ends a wait in afterClose at once (stop() calls it, so the wait never hangs). */
  private wake: (() => void) | undefined;
  private readonly encoder = new TextEncoder();

  constructor(
    private readonly ports: AttachPorts,
    private readonly listener: AttachListener,
  ) {}

  get offset(): number {
    return this.cursor;
  }

  start(): void {
    this.stopped = false;
    this.open(this.cursor === 0 ? "connecting" : "reconnecting");
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.wake?.();
    this.socket?.close(1000, "left the workspace");
    this.socket = undefined;
    this.pending = [];
    this.pendingBytes = 0;
  }

  /**
   * Sends keystrokes. Without an attached connection (while reconnecting) a little is kept and
   * sent once attached; answers false when it could be neither sent nor kept.
   */
  send(data: string | Uint8Array<ArrayBuffer>): boolean {
    const bytes = typeof data === "string" ? this.encoder.encode(data) : data;
    const socket = this.socket;
    if (!socket || socket.readyState !== WebSocket.OPEN || this.pending.length > 0) {
      if (this.stopped || this.pendingBytes + bytes.length > MAX_PENDING) return false;
      this.pending.push(bytes);
      this.pendingBytes += bytes.length;
      return true;
    }
    this.write(socket, bytes);
    return true;
  }

  private write(socket: WebSocket, bytes: Uint8Array<ArrayBuffer>) {
    for (let at = 0; at < bytes.length; at += MAX_FRAME) {
      socket.send(bytes.subarray(at, Math.min(at + MAX_FRAME, bytes.length)));
    }
    return true;
  }

  resize(cols: number, rows: number): void {
    this.size = { cols, rows };
    const socket = this.socket;
    if (socket && socket.readyState === WebSocket.OPEN) {
      socket.send(JSON.stringify({ type: "resize", cols, rows }));
    }
  }

  /** Drops the connection as a network failure would (reconnects from the cursor). */
  drop(): void {
    this.socket?.close(4000, "dropped");
  }

  private open(status: AttachStatus): void {
    if (this.stopped) return;
    this.listener.status(status);
    const socket = new WebSocket(this.ports.url(this.cursor));
    socket.binaryType = "arraybuffer";
    this.socket = socket;
    socket.onmessage = (message) => {
      if (this.socket !== socket) return;
      if (message.data instanceof ArrayBuffer) {
        const bytes = new Uint8Array(message.data);
        this.cursor += bytes.length;
        this.listener.output(bytes);
        return;
      }
      this.notice(String(message.data));
    };
    socket.onopen = () => {
      if (this.size) socket.send(JSON.stringify({ type: "resize", ...this.size }));
    };
    socket.onclose = (event) => {
      if (this.socket !== socket) return;
      this.socket = undefined;
      if (!this.stopped) void this.afterClose(event.reason);
    };
  }

  private notice(text: string): void {
    let frame: {
      type?: string;
      offset?: number;
      nextOffset?: number;
      error?: string;
      reason?: string;
      status?: number;
      live?: number;
    };
    try {
      frame = JSON.parse(text) as typeof frame;
    } catch {
      return;
    }
    switch (frame.type) {
      case "attached":
        this.failures = 0;
        if (typeof frame.offset === "number") this.cursor = frame.offset;
        if (typeof frame.live === "number") this.listener.replay?.(this.cursor, frame.live);
        this.listener.status("attached");
        this.flush();
        break;
      case "reset":
        if (typeof frame.nextOffset === "number") {
          this.cursor = frame.nextOffset;
          this.listener.reset(frame.nextOffset);
        }
        break;
      case "error":
        this.listener.refused(frame.error ?? frame.reason ?? "refused");
        break;
      case "shell-exited":
        this.listener.shellExited(typeof frame.status === "number" ? frame.status : -1);
        break;
      default:
        break;
    }
  }

  /** Sends what was typed while there was no connection, in order. */
  private flush(): void {
    const socket = this.socket;
    if (!socket || socket.readyState !== WebSocket.OPEN) return;
    const pending = this.pending;
    this.pending = [];
    this.pendingBytes = 0;
    for (const bytes of pending) this.write(socket, bytes);
  }

  private async afterClose(reason: string): Promise<void> {
    // While the session is changing (suspending, restoring…) an attach would only be refused.
    let state = await this.ports.state().catch(() => undefined);
    while (!this.stopped && state !== undefined && isChanging(state)) {
      this.listener.status("reconnecting", `the session is ${state}`);
      await new Promise<void>((r) => {
        this.wake = r;
        this.timer = setTimeout(r, backoff(this.failures++));
      });
      this.wake = undefined;
      state = await this.ports.state().catch(() => undefined);
    }
    if (this.stopped) return;
    if (state === "snapshot") {
      this.listener.status("closed", "the session was suspended");
      this.listener.suspended();
      return;
    }
    if (state === "gone" || state === "deleted") {
      this.listener.status("closed", "the session was deleted");
      this.listener.ended("the session was deleted");
      return;
    }
    if (state === "failed") {
      this.listener.status("closed", "the session failed");
      this.listener.ended("the session failed");
      return;
    }
    this.listener.status("reconnecting", reason || undefined);
    const delay = backoff(this.failures++);
    this.timer = setTimeout(() => this.open("reconnecting"), delay);
  }
}
