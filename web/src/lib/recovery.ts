// What the recovery-mode banner says (docs/operations.md, "Restoring a store backup"): nothing
// while recovery mode is off; while it is on, since when, what was found and what to do.

import type { Recovery } from "../api/types";

/** The banner's text, or null when recovery mode is off. */
export function recoveryBanner(recovery: Recovery): string | null {
  if (!recovery.active) return null;
  const since = recovery.since ? ` since ${new Date(recovery.since).toLocaleString()}` : "";
  const found = [
    count(recovery.adoptedSessions.length, "session adopted its runtime's newer intent", "sessions adopted their runtimes' newer intent"),
    count(recovery.quarantinedRuntimes.length, "runtime quarantined", "runtimes quarantined"),
    count(recovery.quarantinedArchives.length, "archive quarantined", "archives quarantined"),
  ]
    .filter((part) => part !== null)
    .join(", ");
  return (
    `Recovery mode${since}: the store is older than what the runtimes or archives saw. ` +
    `No session can be created and nothing is deleted or released until an administrator approves` +
    (found ? ` (${found})` : "") +
    ". Review with `berth admin recovery`, end with `berth admin recovery approve`."
  );
}

function count(n: number, one: string, many: string): string | null {
  if (n === 0) return null;
  return n === 1 ? `1 ${one}` : `${n} ${many}`;
}
