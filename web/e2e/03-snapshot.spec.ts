import { createSession, expect, screenshot, server, test } from "./fixtures";
import { attached, expectTerminalLine, typeLine } from "./terminal";

// J2/J3 through the browser: snapshot from the workspace, the card frozen on the console, open it,
// restore, the old output is back and the shell takes input again. A refused snapshot fails the
// test at that step with the server's message.
test("snapshot from the UI, see the card frozen, open it, restore, see the old output and type again", async ({
  signedIn: page,
}) => {
  const { url } = server();
  await page.getByTestId("new-session").click();
  await page.getByTestId("new-session-dialog").getByLabel("Name").fill("freeze-me");
  await page.getByTestId("create-session").click();
  await expect(page).toHaveURL(/\/session\/[0-9a-f]{32}$/, { timeout: 60_000 });
  const id = page.url().split("/").pop()!;
  await attached(page);
  await typeLine(page, "export MARK=before-snapshot; echo mark-$((20+22))");
  await expectTerminalLine(page, /^mark-42\s*$/m);

  await page.getByTestId("snapshot-now").click();
  const failure = page.getByRole("alert").filter({ hasText: "Snapshot failed" });
  await expect(page.getByTestId("toast").or(failure).first()).toBeVisible({ timeout: 120_000 });
  expect(await failure.allInnerTexts(), "the snapshot was refused").toEqual([]);
  await expect(page).toHaveURL(`${url}/`);

  const card = page.locator(`[data-testid=session-card][data-session-id="${id}"]`);
  await expect(card).toHaveAttribute("data-state", "snapshot");
  await expect(card.getByTestId("archive-size")).not.toHaveText("—");
  await expect(page.getByTestId("count-snapshot")).toHaveText(/^[1-9]\d* snapshot$/);
  await screenshot(page, "console-snapshot");

  await card.getByTestId("card-open").click();
  await expect(page).toHaveURL(`${url}/restore/${id}`);
  await expect(page.getByRole("heading", { name: "Resume from snapshot" })).toBeVisible();
  await expect(page.getByTestId("archive-facts")).toContainText("generation");
  await screenshot(page, "restore");

  await page.getByTestId("restore-resume").click();
  await expect(page).toHaveURL(`${url}/session/${id}`, { timeout: 120_000 });
  await attached(page);
  // The scrollback from before the snapshot replays, and the shell state came back with it.
  await expectTerminalLine(page, /^mark-42\s*$/m);
  await typeLine(page, "echo again-$MARK");
  await expectTerminalLine(page, /^again-before-snapshot\s*$/m);
});

test("a workspace whose session is suspended elsewhere goes to Restore and restores nothing", async ({
  signedIn: page,
}) => {
  const { url } = server();
  const shell = await createSession(page, "suspended-elsewhere");
  const agent = await createSession(page, "suspended-elsewhere-too");
  await page.goto(`${url}/session/${shell}`);
  await expect(page.getByTestId("terminal-status")).toHaveText("shell attached");
  const suspended = await page.request.post(`${url}/api/v1/sessions/${shell}/snapshot`, { data: {} });
  expect(suspended.status(), await suspended.text()).toBe(200);
  await expect(page).toHaveURL(`${url}/restore/${shell}`);

  await page.goto(`${url}/agent/${agent}`);
  await expect(page.getByTestId("ws-stream-status")).toHaveText("output live");
  const again = await page.request.post(`${url}/api/v1/sessions/${agent}/snapshot`, { data: {} });
  expect(again.status(), await again.text()).toBe(200);
  await expect(page).toHaveURL(`${url}/restore/${agent}`);

  for (const id of [shell, agent]) {
    const session = await page.request.get(`${url}/api/v1/sessions/${id}`);
    expect(((await session.json()) as { state: string }).state).toBe("snapshot");
  }
});

test("a deleted session that was snapshotted is recovered from Recently deleted and restored", async ({
  signedIn: page,
}) => {
  const { url } = server();
  const id = await createSession(page, "recover-me");
  const wrote = await page.request.post(`${url}/api/v1/sessions/${id}/write`, {
    data: { payload: "echo kept-$((40+2))\n" },
  });
  expect(wrote.status(), await wrote.text()).toBe(200);
  await expect
    .poll(async () => {
      const read = await page.request.post(`${url}/api/v1/sessions/${id}/read`, { data: { offset: 0 } });
      return ((await read.json()) as { payload: string }).payload;
    })
    .toContain("kept-42");
  const snapshot = await page.request.post(`${url}/api/v1/sessions/${id}/snapshot`, { data: {} });
  expect(snapshot.status(), await snapshot.text()).toBe(200);
  const removed = await page.request.delete(`${url}/api/v1/sessions/${id}`);
  expect([202, 204]).toContain(removed.status());

  await page.reload();
  const deleted = page.getByTestId("recently-deleted");
  await deleted.locator("summary").click();
  const row = deleted.locator(`[data-session-id="${id}"]`);
  await expect(row).toContainText("recover-me");
  await row.getByRole("button", { name: "Recover" }).click();

  await expect(page).toHaveURL(/\/restore\/[0-9a-f]{32}$/);
  expect(page.url()).not.toContain(id);
  await page.getByTestId("restore-resume").click();
  await expect(page).toHaveURL(/\/session\/[0-9a-f]{32}$/, { timeout: 120_000 });
  await expect(page.getByTestId("terminal-status")).toHaveText("shell attached");
  await expect.poll(async () => (await page.locator(".xterm-rows").innerText()).replace(/\u00a0/g, " ")).toMatch(/^kept-42\s*$/m);
  const heir = page.url().split("/").pop()!;

  // Recovered once, the deleted row offers no second recovery but links to the session it became.
  await page.getByRole("link", { name: "← Sessions" }).click();
  await deleted.locator("summary").click();
  await expect(row.getByRole("button", { name: "Recover" })).toHaveCount(0);
  await expect(row).toContainText(/deleted (just now|\d+ s ago|\d+ min ago)/);
  await expect(row.locator("time").first()).toHaveAttribute("title", /^\d{4}-\d\d-\d\dT.*Z$/);
  await row.getByTestId("recovered-as").click();
  await expect(page).toHaveURL(`${url}/session/${heir}`);
});

test("Switch from one workspace to a snapshot session restores it and opens it", async ({ signedIn: page }) => {
  const { url } = server();
  const here = await createSession(page, "switch-from");
  const there = await createSession(page, "switch-to");
  const frozen = await page.request.post(`${url}/api/v1/sessions/${there}/snapshot`, { data: {} });
  expect(frozen.status(), await frozen.text()).toBe(200);

  await page.goto(`${url}/session/${here}`);
  await expect(page.getByTestId("terminal-status")).toHaveText("shell attached");
  await page.getByRole("button", { name: "Switch…" }).click();
  const dialog = page.getByTestId("switch-dialog");
  await expect(dialog).toBeVisible();
  await dialog.getByRole("button", { name: /switch-to/ }).click();
  await expect(page).toHaveURL(`${url}/session/${there}`, { timeout: 120_000 });
  await expect(page.getByTestId("ws-state")).toContainText("active");
  await expect(page.getByTestId("terminal-status")).toHaveText("shell attached");
});
