import { useEffect, useState } from "react";
import { api } from "../api/client";
import { usePolling } from "../lib/polling";
import { recoveryBanner } from "../lib/recovery";

const POLL_MS = 10_000;

/**
 * A banner on every screen while the control plane is in recovery mode. Only the admin may read
 * recovery mode; a tenant sees the refusal (503 RECOVERY_MODE) when it creates a session.
 */
export function RecoveryBanner() {
  const [admin, setAdmin] = useState(false);
  const [text, setText] = useState<string | null>(null);
  useEffect(() => {
    const abort = new AbortController();
    api.isAdmin(abort.signal).then(setAdmin, () => undefined);
    return () => abort.abort();
  }, []);
  usePolling(
    (signal) =>
      api.recovery(signal).then(
        (r) => setText(recoveryBanner(r)),
        () => undefined,
      ),
    POLL_MS,
    [],
    admin,
  );
  if (!text) return null;
  return (
    <p className="banner banner-warn recovery-banner" role="alert" data-testid="recovery-banner">
      {text}
    </p>
  );
}
