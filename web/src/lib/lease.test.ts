import { describe, expect, it } from "vitest";
import { leaseView } from "./lease";

const now = Date.parse("2026-12-06T00:00:00Z");

describe("leaseView", () => {
  it("shows a held lease with its expiry, last renewal and time to live", () => {
    const view = leaseView(
      {
        state: "held",
        expiresAt: "2026-12-06T00:00:42Z",
        renewedAt: "2026-12-05T23:59:42Z",
        ttlSeconds: 60,
        policy: "continue",
        graceSeconds: 900,
      },
      now,
    );
    expect(view.state).toBe("held");
    expect(view.lost).toBe(false);
    expect(view.detail).toContain("expires in");
    expect(view.detail).toContain("ago");
    expect(view.policy).toMatch(/^continue for .+, then stop$/);
  });

  it("says an expired lease is lost and what the agent does about it", () => {
    const view = leaseView(
      { state: "expired", expiresAt: "2026-12-05T23:59:30Z", policy: "stop", graceSeconds: 0, maxLifetimeSeconds: 3600 },
      now,
    );
    expect(view.lost).toBe(true);
    expect(view.detail).toMatch(/^expired .+ ago$/);
    expect(view.policy).toMatch(/^stop at once; at most .+ in all$/);
  });

  it("says a lease the control plane never renewed is not yet held", () => {
    const view = leaseView({ state: "none", policy: "continue", graceSeconds: 60 }, now);
    expect(view.state).toBe("not yet renewed");
    expect(view.lost).toBe(false);
  });
});
