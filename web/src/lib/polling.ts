// The UI's one polling engine: every screen that asks the server again and again (the console,
// a session and its side panel, executions, a provisioning or a restore in progress) does it with
// `usePolling`, the component's side of `poll`, which holds the timing.

import { useEffect, useEffectEvent } from "react";

/** One round of polling; answering `true` means done, and the polling stops. */
export type PollTask = (signal: AbortSignal) => Promise<boolean | void>;

/** The longest wait after failures, however many (unless the interval itself is longer). */
const MAX_BACKOFF_MS = 10_000;

/**
 * Runs `task` at once and then `ms` after each run ends, only while the page is visible: a hidden
 * page is not polled at all, and one that shows again is polled at once. A run still in flight is
 * never started twice. A task that throws is tried again later each time, `ms`·2ⁿ after its n-th
 * failure in a row, at most 10 s; one that answers `true` is done. Answers a function that stops
 * the polling and aborts the signal the runs were given.
 */
export function poll(task: PollTask, ms: number): () => void {
  const abort = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let busy = false;
  let done = false;
  let failures = 0;
  const tick = async () => {
    clearTimeout(timer);
    timer = undefined;
    // Hidden: no timer is left, the page's showing again starts it over.
    if (abort.signal.aborted || done || busy || document.visibilityState !== "visible") return;
    busy = true;
    try {
      done = (await task(abort.signal)) === true;
      failures = 0;
    } catch {
      failures++; // the task shows its own failures
    } finally {
      busy = false;
    }
    if (abort.signal.aborted || done) return;
    const delay = failures === 0 ? ms : Math.max(ms, Math.min(ms * 2 ** failures, MAX_BACKOFF_MS));
    timer = setTimeout(tick, delay);
  };
  const onVisible = () => {
    if (document.visibilityState === "visible") void tick();
  };
  document.addEventListener("visibilitychange", onVisible);
  void tick();
  return () => {
    abort.abort();
    clearTimeout(timer);
    document.removeEventListener("visibilitychange", onVisible);
  };
}

/** What `usePolling` compares to know when to start over: plain values, compared as such. */
type RestartValue = string | number | boolean | null | undefined;

/**
 * `poll` for as long as the component is mounted and `enabled` holds. The polling starts over, at
 * once, when `ms` or a value in `restartOn` changes (a new session id, a new state to ask about);
 * otherwise it goes on undisturbed by renders. The task run is always the latest one given, so it
 * reads the current props and state without their being reasons to start over.
 */
export function usePolling(task: PollTask, ms: number, restartOn: readonly RestartValue[] = [], enabled = true) {
  const run = useEffectEvent(task);
  // The values as one string: the effect's dependency list stays fixed, so the lint can check it.
  const restart = JSON.stringify(restartOn);
  useEffect(() => {
    if (!enabled) return;
    return poll((signal) => run(signal), ms);
  }, [ms, restart, enabled]);
}
