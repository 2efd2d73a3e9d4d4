import { describe, expect, it } from "vitest";
import { operationLabel, operationResult, stateDetail, stateSentence } from "./describe";

describe("stateSentence", () => {
  it("says what the phase means rather than naming it", () => {
    expect(stateSentence({ state: "active", phase: "SUSPENDING" })).toBe("Suspending: archiving its state…");
    expect(stateSentence({ state: "snapshot", phase: "SUSPENDED" })).toBe("Archived, restores on access");
    expect(stateSentence({ state: "snapshot", phase: "RESUMING" })).toBe("Restoring from its archive…");
    expect(stateSentence({ state: "idle", phase: "READY" })).toBe("Idle, runtime still held");
  });

  it("lets the state speak for a ready session", () => {
    expect(stateSentence({ state: "active", phase: "READY" })).toBe("Running");
  });
});

describe("stateDetail", () => {
  it("keeps the exact state and phase for a title", () => {
    expect(stateDetail({ state: "snapshot", phase: "SUSPENDED" })).toBe("state snapshot · phase SUSPENDED");
  });
});

describe("operations", () => {
  it("name an operation and its result in words", () => {
    expect(operationLabel("RESUME")).toBe("Restore");
    expect(operationResult("RUNNING")).toBe("in progress");
  });
});
