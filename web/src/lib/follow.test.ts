import { describe, expect, it } from "vitest";
import { atEnd } from "./follow";

describe("atEnd", () => {
  it("is true at the very end and within the slack of it", () => {
    expect(atEnd({ scrollHeight: 1000, scrollTop: 800, clientHeight: 200 })).toBe(true);
    expect(atEnd({ scrollHeight: 1000, scrollTop: 770, clientHeight: 200 })).toBe(true);
  });

  it("is false once the reader scrolled up past the slack", () => {
    expect(atEnd({ scrollHeight: 1000, scrollTop: 700, clientHeight: 200 })).toBe(false);
    expect(atEnd({ scrollHeight: 1000, scrollTop: 0, clientHeight: 200 })).toBe(false);
  });

  it("is true for content shorter than the view", () => {
    expect(atEnd({ scrollHeight: 150, scrollTop: 0, clientHeight: 200 })).toBe(true);
  });
});
