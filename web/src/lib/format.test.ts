import { describe, expect, it } from "vitest";
import { ago, bytes, instant, moment, textParts } from "./format";

const NOW = Date.parse("2026-11-30T12:00:00Z");

describe("instant", () => {
  it("reads a Java instant with a nanosecond fraction to the millisecond", () => {
    expect(instant("2026-11-30T11:59:58.123456789Z")).toBe(Date.parse("2026-11-30T11:59:58.123Z"));
    expect(instant("not a time")).toBeNaN();
    expect(instant(undefined)).toBeNaN();
  });
});

describe("ago", () => {
  it("says how long ago in the largest whole unit", () => {
    expect(ago("2026-11-30T11:59:58.999999999Z", NOW)).toBe("just now");
    expect(ago("2026-11-30T11:59:20Z", NOW)).toBe("40 s ago");
    expect(ago("2026-11-30T11:57:00.5Z", NOW)).toBe("3 min ago");
    expect(ago("2026-11-30T07:00:00Z", NOW)).toBe("5 h ago");
    expect(ago("2026-11-29T11:00:00Z", NOW)).toBe("1 day ago");
    expect(ago("2026-11-30T12:03:00Z", NOW)).toBe("in 3 min");
  });

  it("gives a local date past a week, and a dash for nothing", () => {
    const old = ago("2026-10-01T08:00:00Z", NOW);
    expect(old).not.toMatch(/ago|T08|Z$/);
    expect(old).toMatch(/2026/);
    expect(ago(undefined, NOW)).toBe("—");
  });
});

describe("moment", () => {
  it("gives the time of day today and the date on another day", () => {
    expect(moment("2026-11-30T11:00:00Z", Date.parse("2026-11-30T11:00:30Z"))).not.toMatch(/2026/);
    expect(moment("2026-11-01T11:00:00Z", NOW)).toMatch(/2026/);
  });
});

describe("bytes", () => {
  it("gives binary units with one decimal below a hundred", () => {
    expect(bytes(512)).toBe("512 B");
    expect(bytes(1468006)).toBe("1.4 MiB");
    expect(bytes(10 * 1024 ** 3)).toBe("10.0 GiB");
    expect(bytes(undefined)).toBe("—");
  });
});

describe("textParts", () => {
  it("finds the instants and byte counts in a message and keeps the rest as text", () => {
    expect(textParts("kept until 2026-12-07T12:00:00.123456789Z; 1048576 bytes over the cap")).toEqual([
      { kind: "text", text: "kept until " },
      { kind: "instant", iso: "2026-12-07T12:00:00.123456789Z" },
      { kind: "text", text: "; " },
      { kind: "bytes", count: 1048576, text: "1048576 bytes" },
      { kind: "text", text: " over the cap" },
    ]);
  });

  it("leaves a message without either alone", () => {
    expect(textParts("accessed recently")).toEqual([{ kind: "text", text: "accessed recently" }]);
    expect(textParts("")).toEqual([]);
  });
});
