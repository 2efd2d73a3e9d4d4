import { createSession, expect, test } from "./fixtures";

// The console and its dialogs work from the keyboard alone: the "⋯" menu (arrows, Home, End,
// Escape returning focus), the delete dialog (focus starts on Cancel, Tab stays inside, Escape
// cancels) and the new-session dialog.
test("keyboard only: open the new-session dialog, cancel it, then delete a session through the menu and dialog", async ({
  signedIn: page,
}) => {
  const id = await createSession(page, "keyboard-target");
  await page.reload();
  const card = page.locator(`[data-testid=session-card][data-session-id="${id}"]`);
  await expect(card).toBeVisible();

  // New session: reach the button by Tab, open with Enter, leave with Escape.
  await tabTo(page, page.getByTestId("new-session"));
  await page.keyboard.press("Enter");
  const create = page.getByTestId("new-session-dialog");
  await expect(create).toBeVisible();
  await expect(create.getByLabel("Name")).toBeFocused();
  await page.keyboard.press("Escape");
  await expect(create).toBeHidden();

  // The card's menu.
  const menuButton = card.getByTestId("card-menu");
  await tabTo(page, menuButton);
  await page.keyboard.press("Enter");
  const open = page.getByRole("menuitem", { name: "Open" });
  const remove = page.getByRole("menuitem", { name: "Delete…" });
  await expect(open).toBeFocused();
  await page.keyboard.press("ArrowDown");
  await expect(remove).toBeFocused();
  await page.keyboard.press("ArrowDown");
  await expect(open).toBeFocused();
  await page.keyboard.press("End");
  await expect(remove).toBeFocused();
  await page.keyboard.press("Home");
  await expect(open).toBeFocused();
  await page.keyboard.press("Escape");
  await expect(page.getByRole("menu")).toBeHidden();
  await expect(menuButton).toBeFocused();

  // Delete dialog: Cancel first, Tab trapped, Escape cancels and focus comes back.
  await page.keyboard.press("ArrowDown");
  await page.keyboard.press("End");
  await page.keyboard.press("Enter");
  const dialog = page.getByRole("alertdialog", { name: "Delete session?" });
  const cancel = dialog.getByRole("button", { name: "Cancel" });
  const confirm = dialog.getByRole("button", { name: "Delete session" });
  await expect(cancel).toBeFocused();
  await page.keyboard.press("Tab");
  await expect(confirm).toBeFocused();
  await page.keyboard.press("Tab");
  await expect(cancel).toBeFocused();
  await page.keyboard.press("Shift+Tab");
  await expect(confirm).toBeFocused();
  // With focus gone from the dialog (a blur), Tab brings it back inside and Escape still cancels.
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  await page.keyboard.press("Tab");
  await expect(cancel).toBeFocused();
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  await page.keyboard.press("Escape");
  await expect(dialog).toBeHidden();
  await expect(card).toBeVisible();
  // Focus returns to the menu button the dialog was opened from.
  await expect(menuButton).toBeFocused();

  // And this time through to the end.
  await expect(menuButton).toBeFocused();
  await page.keyboard.press("Enter");
  await page.keyboard.press("End");
  await page.keyboard.press("Enter");
  await expect(cancel).toBeFocused();
  await page.keyboard.press("Tab");
  await page.keyboard.press("Enter");
  await expect(dialog).toBeHidden();
  await expect(card).toHaveCount(0);
});

/** Presses Tab until `target` has the focus (at most 40 times). */
async function tabTo(page: import("@playwright/test").Page, target: import("@playwright/test").Locator) {
  for (let i = 0; i < 40; i++) {
    if (await target.evaluate((el) => el === document.activeElement)) return;
    await page.keyboard.press("Tab");
  }
  await expect(target).toBeFocused();
}
