import { useState } from "react";
import { api, ApiError } from "../api/client";
import type { Session } from "../api/types";
import { usePolling } from "../lib/polling";
import { errorText } from "../lib/sessionPorts";

export type SessionLoad =
  | { kind: "loading" }
  | { kind: "ready"; session: Session; error?: string }
  | { kind: "missing" }
  | { kind: "failed"; error: string };

/** The session, polled every 3 s while the page is visible. */
export function useSession(id: string): [SessionLoad, (s: Session) => void] {
  const [load, setLoad] = useState<SessionLoad>({ kind: "loading" });
  usePolling(
    async (signal) => {
      try {
        const session = await api.session(id, signal);
        setLoad({ kind: "ready", session });
      } catch (e) {
        if (signal.aborted) return;
        if (e instanceof ApiError && e.status === 404) setLoad({ kind: "missing" });
        else
          setLoad((previous) =>
            previous.kind === "ready" ? { ...previous, error: errorText(e) } : { kind: "failed", error: errorText(e) },
          );
      }
    },
    3000,
    [id],
  );
  return [load, (session) => setLoad({ kind: "ready", session })];
}
