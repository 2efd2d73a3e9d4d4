import { createSession, expect, screenshot, server, test } from "./fixtures";
import { attached, expectTerminalLine, terminalText, typeLine } from "./terminal";

test("create a shell session from the UI, work in its terminal, resize it, reload and see the scrollback", async ({
  signedIn: page,
}) => {
  const { url } = server();
  await expect(page.getByRole("heading", { name: "Sessions" })).toBeVisible();

  await page.getByTestId("new-session").click();
  await expect(page).toHaveURL(`${url}/new`);
  const dialog = page.getByTestId("new-session-dialog");
  await expect(dialog.getByLabel("Name")).toBeFocused();
  await expect(page.getByTestId("create-session")).toBeDisabled();
  await dialog.getByLabel("Name").fill("web-e2e <shell> & \"quotes\"");
  await expect(dialog.getByRole("radio", { name: /shell/ })).toBeChecked();
  await screenshot(page, "new-session");
  await page.getByTestId("create-session").click();

  // Provisioning follows the session's operation, then opens the workspace.
  await expect(page).toHaveURL(/\/session\/[0-9a-f]{32}$/, { timeout: 60_000 });
  const id = page.url().split("/").pop()!;
  // The name is text, never markup.
  await expect(page.getByTestId("ws-name")).toHaveText("web-e2e <shell> & \"quotes\"");
  await attached(page);

  await typeLine(page, "echo $((6*7))");
  await expectTerminalLine(page, /^42\s*$/m);

  // Resize: the shell learns the terminal's new size when the window changes.
  await typeLine(page, "stty size");
  await expectTerminalLine(page, /^\d+ \d+\s*$/m);
  const before = sizes(await terminalText(page)).at(-1)!;
  await page.setViewportSize({ width: 1040, height: 640 });
  await expect
    .poll(
      async () => {
        await typeLine(page, "stty size");
        return sizes(await terminalText(page)).at(-1)!.cols;
      },
      { message: "the shell's columns after the window shrank", intervals: [500, 1000, 1000] },
    )
    .toBeLessThan(before.cols);
  const after = sizes(await terminalText(page)).at(-1)!;
  expect(after.cols).toBeLessThan(before.cols);
  expect(after.rows).toBeLessThan(before.rows);
  await page.setViewportSize({ width: 1280, height: 800 });

  // The side panel: state, the idle countdown and its reason, the runtime, the isolation.
  await expect(page.getByTestId("ws-state")).toContainText("active");
  await expect(page.getByTestId("ws-state-sentence")).toHaveText("Running");
  await expect(page.getByTestId("ws-state-sentence")).toHaveAttribute("title", "state active · phase READY");
  // The reason's instant is a local time of day, the exact value in its title.
  await expect(page.getByTestId("idle-reason")).toContainText("accessed recently");
  await expect(page.getByTestId("idle-reason")).not.toContainText(/\d{4}-\d\d-\d\dT/);
  await expect(page.getByTestId("idle-reason").locator("time")).toHaveAttribute("title", /Z$/);
  await expect(page.getByTestId("isolation")).toContainText("sandbox");
  await expect(page.getByTestId("isolation")).toContainText("egress");
  // The test host enforces the whole sandbox (bin/ensure-test-tools), so no warning is shown.
  await expect(page.getByTestId("weak-isolation")).toHaveCount(0);
  // The session's disk against the default cap, enforced (an ext4 image of its own).
  await expect(page.getByTestId("disk-use")).toContainText("of 10.0 GiB");
  await expect(page.getByTestId("disk-use")).not.toContainText("not enforced");
  await expect(page.getByTestId("operations")).toContainText("Start");
  await expect(page.getByTestId("operations")).toContainText("done");

  // A reload replays the scrollback from offset 0.
  await page.reload();
  await attached(page);
  await expectTerminalLine(page, /^42\s*$/m);
  await expectTerminalLine(page, /echo \$\(\(6\*7\)\)/);
  await screenshot(page, "shell-workspace");

  // Back on the console the session's card shows it active.
  await page.getByRole("link", { name: "← Sessions" }).click();
  const card = page.locator(`[data-testid=session-card][data-session-id="${id}"]`);
  await expect(card).toHaveAttribute("data-state", "active");
  await expect(card).toHaveAttribute("data-workload-type", "shell");
  await expect(card.getByTestId("uptime")).not.toHaveText("—");
  // The admin sees every tenant's sessions, so each card says whose it is.
  await expect(card.getByTestId("tenant")).toHaveText("tenant admin");
  await screenshot(page, "console");
});

test("delete a session from the console through the confirming dialog", async ({ signedIn: page }) => {
  const id = await createSession(page, "to-be-deleted");
  await page.reload();
  const card = page.locator(`[data-testid=session-card][data-session-id="${id}"]`);
  await expect(card).toBeVisible();

  await card.getByTestId("card-menu").click();
  await page.getByRole("menuitem", { name: "Delete…" }).click();
  const dialog = page.getByRole("alertdialog", { name: "Delete session?" });
  await expect(dialog).toContainText("to-be-deleted");
  await expect(dialog).toContainText(`session/${id}`);
  await expect(dialog.getByRole("button", { name: "Cancel" })).toBeFocused();
  await screenshot(page, "delete-dialog");

  await dialog.getByRole("button", { name: "Delete session" }).click();
  await expect(dialog).toBeHidden();
  await expect(card).toHaveCount(0);
  await expect(page.getByTestId("toast")).toContainText('Session "to-be-deleted"');
  const answer = await page.request.get(`${server().url}/api/v1/sessions/${id}`);
  // A deleted session is gone from its routes, as an id that never existed.
  expect(answer.status()).toBe(404);
});

function sizes(text: string): Array<{ rows: number; cols: number }> {
  return [...text.matchAll(/^(\d+) (\d+)\s*$/gm)].map((m) => ({ rows: Number(m[1]), cols: Number(m[2]) }));
}
