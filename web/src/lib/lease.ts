// The runtime's control lease, as GET /sessions/{id}/runtime reports it: what happens to the
// workload if the control plane goes away, and how close that is.
import type { RuntimeStatus } from "../api/types";
import { duration } from "./format";

export type Lease = NonNullable<RuntimeStatus["lease"]>;

export interface LeaseView {
  /** "held", "expired", or "not yet renewed". */
  state: string;
  /** e.g. "expires in 42s (renewed 18s ago, 60s lease)". */
  detail: string;
  /** e.g. "continue for 15m, then stop" or "stop at once". */
  policy: string;
  /** true when the lease expired: the agent closed admission and applies its policy. */
  lost: boolean;
}

function seconds(n: number | undefined): string {
  return n === undefined ? "—" : duration(n * 1000);
}

export function leaseView(lease: Lease, now: number): LeaseView {
  const policy =
    lease.policy === "stop"
      ? "stop at once"
      : `continue for ${seconds(lease.graceSeconds)}, then stop`;
  const lifetime = lease.maxLifetimeSeconds ? `; at most ${seconds(lease.maxLifetimeSeconds)} in all` : "";
  if (lease.state === "none") {
    return { state: "not yet renewed", detail: "the control plane has not renewed it yet", policy: policy + lifetime, lost: false };
  }
  const expires = lease.expiresAt ? Date.parse(lease.expiresAt) : NaN;
  const renewed = lease.renewedAt ? Date.parse(lease.renewedAt) : NaN;
  const parts: string[] = [];
  if (!Number.isNaN(renewed)) parts.push(`renewed ${duration(Math.max(0, now - renewed))} ago`);
  if (lease.ttlSeconds !== undefined) parts.push(`${seconds(lease.ttlSeconds)} lease`);
  const tail = parts.length ? ` (${parts.join(", ")})` : "";
  if (lease.state === "expired") {
    const since = Number.isNaN(expires) ? "" : ` ${duration(Math.max(0, now - expires))} ago`;
    return { state: "expired", detail: `expired${since}${tail}`, policy: policy + lifetime, lost: true };
  }
  const left = Number.isNaN(expires) ? "" : ` in ${duration(Math.max(0, expires - now))}`;
  return { state: "held", detail: `expires${left}${tail}`, policy: policy + lifetime, lost: false };
}
