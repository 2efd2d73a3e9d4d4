// Shared by the browser tests: the server's address and token, a signed-in page, screenshots (into
// web/target/screenshots/, or where BERTH_SCREENSHOTS says: `make screenshots` points it at
// docs/screenshots/), and the rule that no test may leave an error in the browser's console.

import { test as base, expect, type Page } from "@playwright/test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

// `make test` leaves the committed screenshots alone: a run writes its own under the build
// directory, and only `make screenshots` replaces those in docs/.
export const SCREENSHOTS =
  process.env.BERTH_SCREENSHOTS ?? fileURLToPath(new URL("../target/screenshots", import.meta.url));

export function server() {
  const url = process.env.BERTH_E2E_URL;
  const token = process.env.BERTH_E2E_TOKEN;
  if (!url || !token) throw new Error("the global setup did not start a server");
  return { url, token };
}

interface Fixtures {
  /** Console messages of level error and uncaught page errors; checked after each test. */
  consoleErrors: string[];
  /** Messages a test expects (e.g. the 401 of a deliberately wrong login); matched by substring. */
  allowConsoleErrors: (pattern: string) => void;
  signedIn: Page;
}

export const test = base.extend<Fixtures>({
  consoleErrors: [
    async ({ page }, use) => {
      const errors: string[] = [];
      page.on("console", (message) => {
        if (message.type() === "error") errors.push(`console: ${message.text()} (${message.location().url})`);
      });
      page.on("pageerror", (error) => errors.push(`page error: ${error.message}`));
      await use(errors);
    },
    { auto: true },
  ],
  allowConsoleErrors: [
    async ({ consoleErrors }, use, testInfo) => {
      const allowed: string[] = [];
      await use((pattern) => allowed.push(pattern));
      const unexpected = consoleErrors.filter((e) => !allowed.some((a) => e.includes(a)));
      if (testInfo.status === testInfo.expectedStatus) {
        expect(unexpected, "errors in the browser console").toEqual([]);
      }
    },
    { auto: true },
  ],
  signedIn: async ({ page }, use) => {
    const { url, token } = server();
    await page.goto(`${url}/login?token=${token}`);
    await expect(page).toHaveURL(`${url}/`);
    await use(page);
  },
});

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  // Let transitions and the 1 s clocks settle so the picture is of a resting screen.
  await page.waitForTimeout(300);
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: false });
}

/** Creates a session through the public API with the browser's cookie (no UI), waits until active. */
export async function createSession(page: Page, name: string): Promise<string> {
  const { url } = server();
  const response = await page.request.post(`${url}/api/v1/sessions`, { data: { name } });
  expect(response.status(), await response.text()).toBe(201);
  return ((await response.json()) as { id: string }).id;
}

export async function deleteSession(page: Page, id: string): Promise<void> {
  const { url } = server();
  const response = await page.request.delete(`${url}/api/v1/sessions/${id}`);
  expect([204, 202, 404]).toContain(response.status());
}

export { expect };
