import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { poll } from "./polling";

// The tests run in node: a document with just what poll uses, whose visibility a test sets.
const page = {
  visibilityState: "visible" as DocumentVisibilityState,
  listeners: new Set<() => void>(),
  addEventListener(_type: string, listener: () => void) {
    this.listeners.add(listener);
  },
  removeEventListener(_type: string, listener: () => void) {
    this.listeners.delete(listener);
  },
  show(state: DocumentVisibilityState) {
    this.visibilityState = state;
    for (const listener of [...this.listeners]) listener();
  },
};

/** A task whose runs are counted and which answers what `answers` gives next (default: not done). */
function task(answers: Array<boolean | Error> = []) {
  const runs: number[] = [];
  const signals: AbortSignal[] = [];
  const fn = async (signal: AbortSignal) => {
    runs.push(Date.now());
    signals.push(signal);
    const answer = answers.shift();
    if (answer instanceof Error) throw answer;
    return answer ?? false;
  };
  return { fn, runs, signals };
}

beforeEach(() => {
  vi.useFakeTimers({ now: 0 });
  page.visibilityState = "visible";
  page.listeners.clear();
  vi.stubGlobal("document", page);
});

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

describe("poll", () => {
  it("runs at once, then the interval after each run ends, never two runs at a time", async () => {
    let release: () => void = () => {};
    let runs = 0;
    const stop = poll(
      () =>
        new Promise<void>((resolve) => {
          runs++;
          release = resolve;
        }),
      100,
    );
    expect(runs).toBe(1);
    await vi.advanceTimersByTimeAsync(500);
    page.show("visible"); // a visibility event while a run is in flight starts none
    expect(runs).toBe(1);
    release();
    await vi.advanceTimersByTimeAsync(99);
    expect(runs).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(runs).toBe(2);
    stop();
  });

  it("stops for good once the task answers true, without aborting its signal", async () => {
    const t = task([false, true]);
    const stop = poll(t.fn, 100);
    await vi.advanceTimersByTimeAsync(1000);
    page.show("hidden");
    page.show("visible");
    await vi.advanceTimersByTimeAsync(1000);
    expect(t.runs).toEqual([0, 100]);
    expect(t.signals[1].aborted).toBe(false);
    stop();
    expect(t.signals[1].aborted).toBe(true);
  });

  it("backs off after failures, up to 10 s apart, and keeps the interval again after a success", async () => {
    const boom = new Error("boom");
    const t = task([boom, boom, boom, boom, boom, boom, false]);
    const stop = poll(t.fn, 400);
    await vi.advanceTimersByTimeAsync(60_000);
    const gaps = t.runs.slice(1, 9).map((at, i) => at - t.runs[i]);
    expect(gaps).toEqual([800, 1600, 3200, 6400, 10_000, 10_000, 400, 400]);
    stop();
  });

  it("does not run while the page is hidden, and runs at once when it shows again", async () => {
    const t = task();
    const stop = poll(t.fn, 100);
    await vi.advanceTimersByTimeAsync(150);
    page.show("hidden");
    await vi.advanceTimersByTimeAsync(850);
    expect(t.runs).toEqual([0, 100]);
    page.show("visible");
    expect(t.runs).toEqual([0, 100, 1000]);
    await vi.advanceTimersByTimeAsync(100);
    expect(t.runs).toEqual([0, 100, 1000, 1100]);
    stop();
  });

  it("stops when told, aborting the signal, and stops listening to the page", async () => {
    const t = task();
    const stop = poll(t.fn, 100);
    await vi.advanceTimersByTimeAsync(0);
    stop();
    expect(t.signals[0].aborted).toBe(true);
    expect(page.listeners.size).toBe(0);
    await vi.advanceTimersByTimeAsync(1000);
    expect(t.runs).toEqual([0]);
  });
});
