import { createSession, expect, server, test } from "./fixtures";
import { attached, expectTerminalLine, terminalText, typeLine } from "./terminal";

// A network drop: the terminal's WebSocket is cut between the browser and the server; the terminal
// reconnects from its cursor (not from 0), so nothing is lost or shown twice.
test("the terminal reconnects from its cursor after its connection drops", async ({ signedIn: page }) => {
  const { url } = server();
  const id = await createSession(page, "flaky-network");
  const offsets: number[] = [];
  let cut: (() => Promise<void>) | undefined;
  await page.routeWebSocket(/\/attach\?offset=\d+$/, (ws) => {
    offsets.push(Number(new URL(ws.url()).searchParams.get("offset")));
    const upstream = ws.connectToServer();
    cut = async () => {
      await upstream.close();
    };
  });
  await page.goto(`${url}/session/${id}`);
  await attached(page);
  await typeLine(page, "echo first-$((1+1))");
  await expectTerminalLine(page, /^first-2\s*$/m);

  await cut!();
  await expect.poll(() => offsets.length, { message: "a second connection" }).toBeGreaterThanOrEqual(2);
  expect(offsets[0]).toBe(0);
  expect(offsets[1]).toBeGreaterThan(0);
  await expect(page.getByTestId("terminal-status")).toHaveText("shell attached");

  await typeLine(page, "echo second-$((2+2))");
  await expectTerminalLine(page, /^second-4\s*$/m);
  const text = await terminalText(page);
  expect(text.match(/^first-2\s*$/gm)).toHaveLength(1);
});
