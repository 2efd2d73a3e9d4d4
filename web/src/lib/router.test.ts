import { describe, expect, it } from "vitest";
import { parse } from "./router";

describe("parse", () => {
  it("decodes a session id and answers the missing screen for a malformed escape", () => {
    expect(parse("/session/a%20b")).toEqual({ screen: "session", id: "a b" });
    expect(parse("/session/%E0")).toEqual({ screen: "missing", path: "/session/%E0" });
    expect(parse("/restore/%")).toEqual({ screen: "missing", path: "/restore/%" });
  });
});
