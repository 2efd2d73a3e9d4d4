import { describe, expect, it } from "vitest";
import { isTerminalAnswer } from "./answers";

describe("isTerminalAnswer", () => {
  it("recognises the reports xterm.js sends by itself during a replay", () => {
    for (const answer of [
      "\x1b[12;1R", // cursor position
      "\x1b[?1;2c", // primary device attributes
      "\x1b[>0;276;0c", // secondary device attributes
      "\x1b[0n", // status
      "\x1b[?2026;2$y", // DECRQM
      "\x1b]11;rgb:0000/0000/0000\x1b\\", // background colour
      "\x1bP1$r0m\x1b\\", // DECRQSS
      "\x1b[I", // focus in
      "\x1b[<0;10;5M", // SGR mouse
    ]) {
      expect(isTerminalAnswer(answer), JSON.stringify(answer)).toBe(true);
    }
  });

  it("lets what a user types through", () => {
    for (const typed of ["ls\r", "\x1b[A", "\x1b[1;5C", "\x03", "\x1bOP", "q"]) {
      expect(isTerminalAnswer(typed), JSON.stringify(typed)).toBe(false);
    }
  });
});
