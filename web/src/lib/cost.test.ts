import { describe, expect, it } from "vitest";
import { conversationCost, usd } from "./cost";

describe("conversationCost", () => {
  it("is the running total of the newest usage entry", () => {
    const entries = [
      { type: "usage", seq: 3, costUsd: 0.01, totalCostUsd: 0.01 },
      { type: "assistant-text", seq: 4 },
      { type: "usage", seq: 9, costUsd: 0.02, totalCostUsd: 0.03 },
    ];
    expect(conversationCost(entries)).toBe(0.03);
  });

  it("skips usage entries without a total and is undefined when none has one", () => {
    expect(conversationCost([{ type: "usage", seq: 1, costUsd: 0.5 }])).toBeUndefined();
    expect(
      conversationCost([
        { type: "usage", seq: 1, costUsd: 0.5, totalCostUsd: 0.5 },
        { type: "usage", seq: 2, costUsd: 0.25 },
      ]),
    ).toBe(0.5);
    expect(conversationCost([])).toBeUndefined();
  });
});

describe("usd", () => {
  it("keeps four decimals under a dollar and two above", () => {
    expect(usd(0.0042)).toBe("$0.0042");
    expect(usd(0)).toBe("$0.0000");
    expect(usd(12.3)).toBe("$12.30");
  });
});
