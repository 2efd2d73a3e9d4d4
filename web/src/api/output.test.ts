import { describe, expect, it } from "vitest";
import { backoff, OutputFollower, partialTail, type OutputListener, type OutputPorts } from "./output";
import { SseParser } from "./sse";
import type { Lifecycle } from "./types";

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
  states?: Array<Lifecycle | "gone">;
  /** The log POST read serves: each read answers at most `page` bytes from its offset. */
  log?: Uint8Array;
  page?: number;
  /** Options for the follower (the stream's idle timeout). */
  idleTimeoutMs?: number;
}

function run(script: Script) {
  const log = {
    text: "",
    statuses: [] as string[],
    details: [] as Array<string | undefined>,
    opened: [] as number[],
    suspended: false,
    ended: "",
    reads: 0,
    readAt: [] as number[],
    sleeps: [] as number[],
  };
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
    async read(offset) {
      log.reads++;
      log.readAt.push(offset);
      if (!script.log) throw new Error("no read scripted");
      const start = Math.min(offset, script.log.length);
      const bytes = script.log.subarray(start, start + (script.page ?? 1 << 20));
      return { offset: start, nextOffset: start + bytes.length, payload: "", payloadBase64: b64(bytes) };
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
    status: (s, d) => {
      log.statuses.push(s);
      log.details.push(d);
    },
    suspended: () => (log.suspended = true),
    ended: (r) => (log.ended = r),
  };
  // The ports above stop it when the script runs out; they run only once it has started.
  const follower = new OutputFollower(ports, listener, { idleTimeoutMs: script.idleTimeoutMs });
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
      log: whole,
    });
    await done;
    expect(log.readAt).toEqual([0, 13]);
    expect(log.text).toBe("the whole log!");
    expect(log.opened.slice(0, 2)).toEqual([0, 13]);
  });

  it("re-reads through the server's decoding when the stream is not UTF-8", async () => {
    const invalid = new Uint8Array([0x61, 0xff, 0x62]);
    const { log, done } = run({
      opens: [() => stream([output(0, invalid)])],
      log: invalid,
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

describe("OutputFollower reconnects", () => {
  it("re-reads page by page, carrying a character cut by a page's end, and resumes after it", async () => {
    const whole = enc.encode("ab€€"); // 8 bytes: pages of 3 cut both euros
    const { log, done } = run({
      opens: [() => stream([output(0, new Uint8Array([0xff]))]), () => stream([output(8, enc.encode("!"))])],
      log: whole,
      page: 3,
    });
    await done;
    expect(log.readAt).toEqual([0, 3, 6, 8]);
    expect(log.text).toBe("ab€€!");
    expect(log.opened.slice(0, 2)).toEqual([0, 8]);
  });

  it("stops the cursor before a character the log has not finished, and the stream completes it", async () => {
    const head = new Uint8Array([0x6f, 0x6b, 0xe2, 0x82]); // "ok" and two thirds of a euro
    const { log, done } = run({
      opens: [
        () => stream(["id: 4\nevent: reset\ndata: {}\n\n"]),
        (offset) => stream([output(offset, new Uint8Array([0xe2, 0x82, 0xac, 0x21]))]),
      ],
      log: head,
    });
    await done;
    expect(log.opened.slice(0, 2)).toEqual([0, 2]);
    expect(log.text).toBe("ok€!");
  });

  it("backs off when a re-read made no progress instead of reading again at once", async () => {
    const bad = () => stream([output(0, new Uint8Array([0xff]))]);
    const again = (offset: number) => stream([output(offset, new Uint8Array([0xff]))]);
    const { log, done } = run({ opens: [bad, again, again, again], log: new Uint8Array([0xff]), page: 1 });
    await done;
    // The first re-read is at once; every later one, with nothing new since, waits longer.
    expect(log.sleeps.slice(0, 3)).toEqual([250, 500, 1000]);
    expect(log.text).toBe("\uFFFD");
  });

  it("backs off on a gap that made no progress", async () => {
    const gap = () => stream([output(5, enc.encode("zz"))]);
    const { log, done } = run({ opens: [gap, gap, gap] });
    await done;
    expect(log.sleeps).toEqual([250, 500, 1000]);
    expect(log.opened).toEqual([0, 0, 0, 0]);
  });

  it("starts the backoff again after a good connection", async () => {
    const failing = () => new Response("{}", { status: 503 });
    const good = (offset: number) => stream([output(offset, enc.encode("ok"))]);
    const { log, done } = run({ opens: [failing, failing, failing, good, failing] });
    await done;
    expect(log.sleeps).toEqual([250, 500, 1000, 250, 500]);
  });

  it("aborts a stream that has been silent too long and reconnects", async () => {
    const { log, done } = run({
      opens: [() => stream([output(0, enc.encode("x"))], true), (offset) => stream([output(offset, enc.encode("y"))])],
      idleTimeoutMs: 30,
    });
    await done;
    expect(log.text).toBe("xy");
    expect(log.details).toContain("no data for 0 s");
    expect(log.opened.slice(0, 2)).toEqual([0, 1]);
  });

  it("keeps a stream that sends keepalives", async () => {
    let timer: ReturnType<typeof setInterval> | undefined;
    let sent = 0;
    const keepalive = () =>
      new Response(
        new ReadableStream<Uint8Array>({
          start(controller) {
            controller.enqueue(enc.encode(output(0, enc.encode("x"))));
            timer = setInterval(() => {
              if (++sent === 8) {
                clearInterval(timer);
                controller.close();
              } else controller.enqueue(enc.encode(": keepalive\n\n"));
            }, 10);
          },
        }),
        { status: 200 },
      );
    const { log, done } = run({ opens: [keepalive], idleTimeoutMs: 40 });
    await done;
    expect(log.details).toContain("the stream ended");
    expect(log.details).not.toContain("no data for 0 s");
  });
});

describe("partialTail", () => {
  it("finds the valid start of an unfinished character at the end", () => {
    const euro = [0xe2, 0x82, 0xac];
    expect(partialTail(new Uint8Array([0x61]))).toBe(0);
    expect(partialTail(new Uint8Array([0x61, ...euro]))).toBe(0);
    expect(partialTail(new Uint8Array([0x61, 0xe2]))).toBe(1);
    expect(partialTail(new Uint8Array([0x61, 0xe2, 0x82]))).toBe(2);
    expect(partialTail(new Uint8Array([0xf0, 0x9f, 0x98]))).toBe(3);
    expect(partialTail(new Uint8Array([0xe0, 0x80]))).toBe(0); // overlong: malformed, not partial
    expect(partialTail(new Uint8Array([0x61, 0xff]))).toBe(0);
    expect(partialTail(new Uint8Array([0x82, 0xac]))).toBe(0);
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
