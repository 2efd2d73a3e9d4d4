import { describe, expect, it } from "vitest";
import { limitView } from "./limits";

describe("limitView", () => {
  it("shows a byte limit as a size, keeping the exact count", () => {
    expect(limitView("maxMemoryBytes", 2147483648)).toEqual({ label: "memory", kind: "bytes", count: 2147483648 });
    expect(limitView("maxDiskBytes", 10737418240)).toMatchObject({ label: "disk", kind: "bytes" });
  });

  it("shows CPU in cores with the millicores in the title", () => {
    expect(limitView("cpuMillis", 1000)).toEqual({ label: "CPU", kind: "text", text: "1 core", exact: "1000 millicores" });
    expect(limitView("cpuMillis", 1500)).toMatchObject({ text: "1.5 cores" });
    expect(limitView("cpuMillis", 250)).toMatchObject({ text: "0.25 cores" });
  });

  it("shows a count with separators and an unknown limit as the agent sent it", () => {
    expect(limitView("maxProcesses", 512)).toMatchObject({ label: "processes", text: "512" });
    expect(limitView("maxThings", 12345)).toMatchObject({ label: "maxThings", text: "12,345" });
    expect(limitView("odd", { a: 1 })).toMatchObject({ label: "odd", text: '{"a":1}' });
  });
});
