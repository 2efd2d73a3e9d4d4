import { createSession, expect, screenshot, server, test } from "./fixtures";

// The agent workspace renders whatever a session produces: here a shell session's output (to which a
// prompt is a command line); 09-agent-session.spec.ts drives a real agent session.
test("agent workspace: the transcript streams over SSE, prompts go one at a time, executions are listed", async ({
  signedIn: page,
}) => {
  const { url } = server();
  const id = await createSession(page, "agent-view");
  await page.goto(`${url}/agent/${id}`);
  await expect(page.getByTestId("ws-stream-status")).toHaveText("output live");

  const prompt = page.getByTestId("ws-prompt");
  await prompt.fill("echo agent-$((3+4))");
  await prompt.press("Enter");
  await prompt.fill("echo '<b>not bold</b>'");
  await prompt.press("Enter");
  const transcript = page.getByTestId("transcript");
  await expect(transcript).toContainText("agent-7");
  // Output is text: markup in it is shown, never interpreted.
  await expect(transcript).toContainText("<b>not bold</b>");
  await expect(transcript.locator("b")).toHaveCount(0);
  await expect(page.getByTestId("submissions").locator(".submission-sent")).toHaveCount(2);
  await expect(page.getByTestId("pending")).not.toContainText("pending");

  // An execution beside the shell, through the public API, shows up with its state.
  const run = await page.request.post(`${url}/api/v1/sessions/${id}/executions`, {
    data: { command: "echo from-an-execution" },
  });
  expect(run.status(), await run.text()).toBe(201);
  const executions = page.getByTestId("executions");
  await expect(executions).toContainText("echo from-an-execution");
  await expect(executions.locator("[data-execution-state=SUCCEEDED]")).toHaveCount(1, { timeout: 30_000 });
  await screenshot(page, "agent-workspace");

  // Re-read follows the transcript again from offset 0: it replaces what was shown, never adds
  // to it. Output produced after the Re-read comes after the whole backlog on the stream, so once
  // it is shown the backlog is too, and each line must be there exactly once.
  const count = async (needle: string) => ((await transcript.textContent()) ?? "").split(needle).length - 1;
  expect(await count("agent-7")).toBe(1);
  await page.getByRole("button", { name: "Re-read" }).click();
  await expect(page.getByTestId("ws-stream-status")).toHaveText("output live");
  await prompt.fill("echo after-$((40+2))");
  await prompt.press("Enter");
  await expect(transcript).toContainText("after-42");
  expect(await count("agent-7")).toBe(1);
  expect(await count("after-42")).toBe(1);

  // A reload reads the transcript again from offset 0.
  await page.reload();
  await expect(page.getByTestId("ws-stream-status")).toHaveText("output live");
  await expect(transcript).toContainText("after-42");
  expect(await count("agent-7")).toBe(1);
});
