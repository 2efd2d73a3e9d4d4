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

export function StateBadge({ state, large }: { state: Lifecycle | string; large?: boolean }) {
  return (
    <span className={`badge badge-${state} ${large ? "badge-large" : ""}`} data-testid="state-badge">
      <span className="badge-dot" aria-hidden="true" />
      {LABELS[state] ?? state}
    </span>
  );
}
