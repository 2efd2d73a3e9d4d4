import { ADMIN_TOKEN, startServer, type RunningServer } from "./global-setup";
import { expect, screenshot, test } from "./fixtures";

// An idle session's card counts down to its suspension with the time GET /idle gives. This test
// runs its own server whose sessions go idle after 2 s (and suspend after 10 min).
let server: RunningServer;

test.beforeAll(async () => {
  server = await startServer(["--idle-after=2s", "--idle-scan=1s", "--suspend-after=10m"]);
});

test.afterAll(async () => {
  await server?.stop();
});

test("an idle session's card counts down to its suspension", async ({ page }) => {
  await page.goto(`${server.url}/login?token=${ADMIN_TOKEN}`);
  const created = await page.request.post(`${server.url}/api/v1/sessions`, { data: { name: "resting" } });
  expect(created.status(), await created.text()).toBe(201);
  const id = ((await created.json()) as { id: string }).id;

  const card = page.locator(`[data-testid=session-card][data-session-id="${id}"]`);
  await expect(card).toHaveAttribute("data-state", "idle", { timeout: 30_000 });
  await expect(page.getByTestId("count-idle")).toContainText("1");
  const countdown = card.getByTestId("suspends-in");
  await expect(countdown).toHaveText(/^9:\d\d$/);
  const first = await countdown.innerText();
  await expect.poll(() => countdown.innerText(), { message: "the countdown ticks" }).not.toBe(first);
  await screenshot(page, "console-idle");

  // Its workspace explains the decision with the same numbers.
  await card.getByTestId("card-open").click();
  await expect(page.getByTestId("idle-countdown")).toHaveText(/suspends in 9:\d\d/);
  await expect(page.getByTestId("idle-reason")).toContainText("no client access since");

  // A keep-alive holds it (without counting as access).
  await page.getByRole("button", { name: "Keep for 1 h" }).click();
  await expect(page.getByTestId("keepalive")).toContainText("Kept from suspension until");
  await expect(page.getByTestId("idle-countdown")).toHaveText(/suspends in (59|1:00):\d\d/);
});
