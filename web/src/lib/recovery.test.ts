import { describe, expect, it } from "vitest";
import type { Recovery } from "../api/types";
import { recoveryBanner } from "./recovery";

const off: Recovery = {
  active: false,
  storeEpoch: 4,
  highWaterMarks: [{ source: "node", epoch: 4 }],
  adoptedSessions: [],
  quarantinedRuntimes: [],
  quarantinedArchives: [],
  unreachableSessions: [],
};

describe("recoveryBanner", () => {
  it("says nothing while recovery mode is off", () => {
    expect(recoveryBanner(off)).toBeNull();
  });

  it("says what was found and how to end it while recovery mode is on", () => {
    const text = recoveryBanner({
      ...off,
      active: true,
      since: "2026-12-05T10:00:00Z",
      adoptedSessions: ["a"],
      quarantinedRuntimes: ["r1", "r2"],
    });
    expect(text).toContain("Recovery mode since");
    expect(text).toContain("1 session adopted its runtime's newer intent");
    expect(text).toContain("2 runtimes quarantined");
    expect(text).not.toContain("quarantined archive");
    expect(text).not.toContain("archives quarantined");
    expect(text).toContain("berth admin recovery approve");
  });
});
