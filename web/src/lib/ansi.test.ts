import { describe, expect, it } from "vitest";
import { plainText } from "./ansi";

describe("plainText", () => {
  it("removes colours, titles and cursor moves and folds carriage returns", () => {
    expect(plainText("\x1b]0;title\x07\x1b[1;32mok\x1b[0m\r\n")).toBe("ok\n");
    expect(plainText("50%\r100%\n")).toBe("100%\n");
    expect(plainText("abc\rX\n")).toBe("Xbc\n");
    expect(plainText("<script>alert(1)</script>")).toBe("<script>alert(1)</script>");
  });
});
