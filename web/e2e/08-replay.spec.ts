import { createSession, deleteSession, expect, server, test } from "./fixtures";
import { attached } from "./terminal";

// A real xterm.js answers the queries a program asks (cursor position, device attributes,
// colours) by sending input. Reopening a session whose history holds a vim session must not make
// it answer the old questions into the shell: every input of an attach is an access, so the
// session's lastAccess proves that nothing was typed.
test("reopening a session whose history contains vim types nothing into its shell", async ({ signedIn: page }) => {
  const { url } = server();
  const id = await createSession(page, "replay-vim");
  const api = `${url}/api/v1/sessions/${id}`;
  const write = async (payload: string) =>
    expect((await page.request.post(`${api}/write`, { data: { payload } })).status()).toBe(200);
  const log = async () => {
    const answer = await page.request.post(`${api}/read`, { data: { offset: 0 } });
    return ((await answer.json()) as { payload: string }).payload;
  };
  await write("TERM=xterm-256color vim -N -u NONE -i NONE /tmp/replay.txt\n");
  await expect.poll(log, { message: "vim started" }).toContain("\u001b[?1049h");
  await write("\u001b:q!\r");
  await expect.poll(log, { message: "vim quit" }).toContain("\u001b[?1049l");
  expect(await log(), "vim asked its terminal for the cursor position").toContain("\u001b[6n");
  await page.waitForTimeout(1000);
  const lastAccess = async () =>
    ((await (await page.request.get(api)).json()) as { activity: { lastAccess: string } }).activity.lastAccess;
  const before = await lastAccess();

  await page.goto(`${url}/session/${id}`);
  await attached(page);
  await page.waitForTimeout(3000);

  expect(await lastAccess(), "no input reached the session").toBe(before);
  // Leave the workspace first: it would report the deleted session's 404 as an error.
  await page.goto(`${url}/`);
  await deleteSession(page, id);
});
