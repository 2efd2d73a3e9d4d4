// The follower's and the terminal's view of the server: session state, the stream and the attach.

import { api, API, ApiError, notifyUnauthenticated, problemOf } from "../api/client";
import type { OutputPorts } from "../api/output";
import { lifecycle, type Lifecycle } from "../api/types";
import type { AttachPorts } from "../terminal/attach";

/** What the session is doing (its phase where that says more than its state), or gone. */
export async function sessionState(id: string): Promise<Lifecycle | "gone"> {
  try {
    return lifecycle(await api.session(id));
  } catch (e) {
    if (e instanceof ApiError && e.status === 404) return "gone";
    throw e;
  }
}

export function outputPorts(id: string): OutputPorts {
  return {
    async open(offset, signal) {
      const headers: Record<string, string> = { Accept: "text/event-stream" };
      if (offset > 0) headers["Last-Event-ID"] = String(offset);
      const response = await fetch(`${API}/sessions/${encodeURIComponent(id)}/stream?offset=${offset}`, {
        headers,
        signal,
        cache: "no-store",
        credentials: "same-origin",
      });
      if (response.status === 401) notifyUnauthenticated(await problemOf(response.clone()));
      return response;
    },
    read: (offset) => api.read(id, offset),
    state: () => sessionState(id),
    sleep: (ms, signal) =>
      new Promise((resolve) => {
        if (signal.aborted) return resolve();
        const onAbort = () => {
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(() => {
          signal.removeEventListener("abort", onAbort);
          resolve();
        }, ms);
        signal.addEventListener("abort", onAbort, { once: true });
      }),
  };
}

export function attachPorts(id: string): AttachPorts {
  return {
    url(offset) {
      const scheme = window.location.protocol === "https:" ? "wss:" : "ws:";
      return `${scheme}//${window.location.host}${API}/sessions/${encodeURIComponent(id)}/attach?offset=${offset}`;
    },
    state: () => sessionState(id),
  };
}

export function errorText(e: unknown): string {
  if (e instanceof Error) return e.message;
  return String(e);
}
