import { describe, expect, it } from "vitest";
import { backoff, OutputFollower, type OutputListener, type OutputPorts } from "./output";
import { SseParser } from "./sse";
import type { SessionState } from "./types";

const enc = new TextEncoder();

function b64(bytes: Uint8Array): string {
  let s = "";
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s);
}

function output(offset: number, bytes: Uint8Array, id = String(offset + bytes.length)): string {
  const data = { offset, payloadBase64: b64(bytes), nextOffset: offset + bytes.length };
  return `id: ${id}\nevent: output\ndata: ${JSON.stringify(data)}\n\n`;
}

/** A 200 event-stream that sends the given chunks, then ends (or stays open). */
function stream(chunks: string[], stayOpen = false): Response {
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(enc.encode(": connected\n\n"));
      for (const c of chunks) controller.enqueue(enc.encode(c));
      if (!stayOpen) controller.close();
    },
  });
  return new Response(body, { status: 200, headers: { "Content-Type": "text/event-stream" } });
}

interface Script {
  /** One response per connection, given the offset it was opened at. */
  opens: Array<(offset: number) => Response>;
  states?: Array<SessionState | "gone">;
  readAll?: { offset: number; nextOffset: number; payload: string; payloadBase64: string };
}

function run(script: Script) {
  const log = {
    text: "",
    statuses: [] as string[],
    opened: [] as number[],
    suspended: false,
    ended: "",
    reads: 0,
    sleeps: [] as number[],
  };
  let follower: OutputFollower;
  const ports: OutputPorts = {
    async open(offset) {
      log.opened.push(offset);
      const next = script.opens.shift();
      if (!next) {
        follower.stop();
        throw new Error("no more connections scripted");
      }
      return next(offset);
    },
    async readAll() {
      log.reads++;
      if (!script.readAll) throw new Error("no read scripted");
      return script.readAll;
    },
    async state() {
      return script.states?.shift() ?? "active";
    },
    async sleep(ms) {
      log.sleeps.push(ms);
    },
  };
  const listener: OutputListener = {
    append: (t) => (log.text += t),
    replace: (t) => (log.text = t),
    status: (s) => log.statuses.push(s),
    suspended: () => (log.suspended = true),
    ended: (r) => (log.ended = r),
  };
  follower = new OutputFollower(ports, listener);
  return { follower, log, done: follower.start() };
}

describe("OutputFollower", () => {
  it("appends contiguous events and reconnects from its cursor when the stream ends", async () => {
    const { follower, log, done } = run({
      opens: [() => stream([output(0, enc.encode("hello ")), output(6, enc.encode("world"))])],
    });
    await done;
    expect(log.text).toBe("hello world");
    expect(follower.offset).toBe(11);
    expect(log.opened).toEqual([0, 11]);
    expect(log.statuses.slice(0, 3)).toEqual(["connecting", "live", "reconnecting"]);
  });

  it("drops events it has shown and slices an overlap", async () => {
    const { log, done } = run({
      opens: [
        () => stream([output(0, enc.encode("abc"))]),
        () => stream([output(0, enc.encode("abc")), output(1, enc.encode("bcdef"))]),
      ],
    });
    await done;
    expect(log.text).toBe("abcdef");
  });

  it("refuses an event whose id is not its nextOffset, or whose length is wrong", async () => {
    const bad = output(0, enc.encode("abc"), "2");
    const short = `id: 5\nevent: output\ndata: ${JSON.stringify({ offset: 0, payloadBase64: b64(enc.encode("abc")), nextOffset: 5 })}\n\n`;
    const { log, done } = run({ opens: [() => stream([bad]), () => stream([short])] });
    await done;
    expect(log.text).toBe("");
    expect(log.opened).toEqual([0, 0, 0]);
  });

  it("treats an event after its cursor as a gap and reconnects from the cursor", async () => {
    const { log, done } = run({
      opens: [
        () => stream([output(0, enc.encode("ab")), output(5, enc.encode("zz"))], true),
        () => stream([output(2, enc.encode("cdezz"))]),
      ],
    });
    await done;
    expect(log.text).toBe("abcdezz");
    expect(log.opened.slice(0, 2)).toEqual([0, 2]);
  });

  it("decodes UTF-8 split across events", async () => {
    const euro = enc.encode("€"); // 3 bytes
    const { log, done } = run({
      opens: [() => stream([output(0, euro.subarray(0, 1)), output(1, euro.subarray(1))])],
    });
    await done;
    expect(log.text).toBe("€");
  });

  it("on reset reads from offset 0, replaces the transcript and continues from that read", async () => {
    const whole = enc.encode("the whole log");
    const { log, done } = run({
      opens: [
        () => stream([output(0, enc.encode("stale")), "id: 13\nevent: reset\ndata: {\"nextOffset\":13}\n\n"]),
        () => stream([output(13, enc.encode("!"))]),
      ],
      readAll: { offset: 0, nextOffset: 13, payload: "the whole log", payloadBase64: b64(whole) },
    });
    await done;
    expect(log.reads).toBe(1);
    expect(log.text).toBe("the whole log!");
    expect(log.opened.slice(0, 2)).toEqual([0, 13]);
  });

  it("re-reads through the server's decoding when the stream is not UTF-8", async () => {
    const invalid = new Uint8Array([0x61, 0xff, 0x62]);
    const { log, done } = run({
      opens: [() => stream([output(0, invalid)])],
      readAll: { offset: 0, nextOffset: 3, payload: "a\uFFFDb", payloadBase64: b64(invalid) },
    });
    await done;
    expect(log.text).toBe("a\uFFFDb");
  });

  it("goes to Restore without reading when the session was suspended", async () => {
    const { log, done } = run({
      opens: [() => stream([output(0, enc.encode("x"))])],
      states: ["snapshot"],
    });
    await done;
    expect(log.suspended).toBe(true);
    expect(log.reads).toBe(0);
    expect(log.statuses.at(-1)).toBe("offline");
  });

  it("waits while the session is suspending instead of reopening a stream it would be refused", async () => {
    const { log, done } = run({
      opens: [() => stream([output(0, enc.encode("x"))])],
      states: ["suspending", "suspending", "snapshot"],
    });
    await done;
    expect(log.opened).toEqual([0]);
    expect(log.sleeps).toEqual([250, 500]);
    expect(log.suspended).toBe(true);
  });

  it("stops when the session is gone", async () => {
    const { log, done } = run({
      opens: [() => new Response("{}", { status: 422 })],
      states: ["gone"],
    });
    await done;
    expect(log.ended).toContain("deleted");
    expect(log.opened).toEqual([0]);
  });

  it("backs off 250 ms doubling up to 5 s", async () => {
    expect([0, 1, 2, 3, 4, 5, 6, 9].map(backoff)).toEqual([
      250, 500, 1000, 2000, 4000, 5000, 5000, 5000,
    ]);
    const failing = () => new Response("{}", { status: 503 });
    const { log, done } = run({ opens: [failing, failing, failing] });
    await done;
    expect(log.sleeps).toEqual([250, 500, 1000]);
  });
});

describe("SseParser", () => {
  it("handles comments, CRLF split across chunks and multi-line data", () => {
    const parser = new SseParser();
    const events = [
      ...parser.push(enc.encode(": keepalive\r")),
      ...parser.push(enc.encode("\n\r\nid: 7\r")),
      ...parser.push(enc.encode("\nevent: output\ndata: a\ndata: b\n")),
      ...parser.push(enc.encode("\n")),
    ];
    expect(events).toEqual([{ id: "7", event: "output", data: "a\nb" }]);
  });
});
