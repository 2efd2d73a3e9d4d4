import { expect, type Page } from "@playwright/test";

/** The terminal's visible rows as text (xterm.js renders them into .xterm-rows). */
export async function terminalText(page: Page): Promise<string> {
  return (await page.locator(".xterm-rows").innerText()).replace(/\u00a0/g, " ");
}

/** Types a command line into the terminal, as a user does, and presses Enter. */
export async function typeLine(page: Page, line: string): Promise<void> {
  await page.getByTestId("terminal").click();
  await page.keyboard.type(line);
  await page.keyboard.press("Enter");
}

export async function expectTerminalLine(page: Page, line: RegExp): Promise<void> {
  await expect.poll(() => terminalText(page), { message: `a terminal line matching ${line}` }).toMatch(line);
}

export async function attached(page: Page): Promise<void> {
  await expect(page.getByTestId("terminal-status")).toHaveText("shell attached");
  // The shell prints its first prompt once it runs; typing before that still works, but waiting
  // keeps the screenshots tidy.
  await expect.poll(() => terminalText(page)).toMatch(/[$#]\s*$/m);
}
