import { useEffect, useRef, useState } from "react";

/** The current time, ticking every `ms` while `enabled`. */
export function useNow(ms = 1000, enabled = true): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!enabled) return;
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(timer);
  }, [ms, enabled]);
  return now;
}

/**
 * Runs `task` now and every `ms` while the page is visible (and at once when it becomes visible
 * again); a task still in flight is not started twice. The latest `task` is always the one run.
 */
export function usePoll(task: (signal: AbortSignal) => Promise<void>, ms: number, deps: unknown[]) {
  const latest = useRef(task);
  latest.current = task;
  useEffect(() => {
    const abort = new AbortController();
    let busy = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const tick = async () => {
      clearTimeout(timer);
      if (abort.signal.aborted) return;
      if (!busy && document.visibilityState === "visible") {
        busy = true;
        try {
          await latest.current(abort.signal);
        } catch {
          // the task reports its own failures
        } finally {
          busy = false;
        }
      }
      if (!abort.signal.aborted) timer = setTimeout(tick, ms);
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
    // eslint-disable-next-line react-hooks/exhaustive-deps -- the caller's dependencies: a change starts the polling over
  }, [ms, ...deps]);
}

/**
 * Polls `task` every `ms` while the page is visible, and not at all while it is hidden (it runs
 * again at once when the page shows). A task that throws is retried later each time, up to 10 s
 * apart; one that answers `true` is done and the polling stops. Answers a function that stops it.
 */
export function pollVisible(task: (signal: AbortSignal) => Promise<boolean | void>, ms: number): () => void {
  const abort = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let busy = false;
  let done = false;
  let failures = 0;
  const schedule = (delay: number) => {
    clearTimeout(timer);
    if (!abort.signal.aborted && !done) timer = setTimeout(tick, delay);
  };
  const tick = async () => {
    clearTimeout(timer);
    timer = undefined;
    if (abort.signal.aborted || done || busy) return;
    if (document.visibilityState !== "visible") return; // onVisible starts it again
    busy = true;
    try {
      done = (await task(abort.signal)) === true;
      failures = 0;
    } catch {
      failures++;
    } finally {
      busy = false;
    }
    schedule(failures === 0 ? ms : Math.min(ms * 2 ** failures, 10_000));
  };
  const onVisible = () => {
    if (document.visibilityState === "visible" && timer === undefined) void tick();
  };
  document.addEventListener("visibilitychange", onVisible);
  timer = setTimeout(tick, 0);
  return () => {
    abort.abort();
    clearTimeout(timer);
    document.removeEventListener("visibilitychange", onVisible);
  };
}

/** A ref that is true while the component is mounted: work finishing later checks it first. */
export function useMounted(): { readonly current: boolean } {
  const mounted = useRef(false);
  useEffect(() => {
    mounted.current = true;
    return () => {
      mounted.current = false;
    };
  }, []);
  return mounted;
}
