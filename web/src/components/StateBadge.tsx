import type { Lifecycle } from "../api/types";

const LABELS: Record<string, string> = {
  active: "active",
  idle: "idle",
  snapshot: "snapshot",
  provisioning: "provisioning",
  suspending: "suspending",
  restoring: "restoring",
  deleting: "deleting",
  deleted: "deleted",
  failed: "failed",
};

/** The state in a word; `title` carries the exact state and phase (see lib/describe.ts). */
export function StateBadge({ state, large, title }: { state: Lifecycle | string; large?: boolean; title?: string }) {
  return (
    <span className={`badge badge-${state} ${large ? "badge-large" : ""}`} data-testid="state-badge" title={title}>
      <span className="badge-dot" aria-hidden="true" />
      {LABELS[state] ?? state}
    </span>
  );
}
