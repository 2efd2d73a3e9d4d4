import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ADMIN_TOKEN, startServer, type RunningServer } from "./global-setup";
import { expect, screenshot, test } from "./fixtures";

// The approval gate from the web UI: a claude-code session (the real Claude Code CLI of
// tools/agent-clis, in a real session) on a server whose policy gates every tool call of
// claude-code (`--approval claude-code=all`). The model provider is the one fake, as in
// 09-agent-session: the Java FakeModelProvider of berth-agent's tests, run as a process, whose
// scripted answer to a prompt with "touch" is a Bash tool call (`touch marker.txt`), and to a
// prompt starting "run: " a Bash tool call of the rest. The session's credential proxy holds each
// call until it is decided here: the card shows it, Approve releases it (the tool runs), Reject
// drops it (the turn ends with the reason, the session stays).
const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const CLAUDE = join(ROOT, "tools/agent-clis/node_modules/.bin/claude");
const AUTH = { Authorization: `Bearer ${ADMIN_TOKEN}` };

let server: RunningServer;
let provider: ChildProcess;
let work: string;

function java(): string {
  const home = process.env.JAVA_HOME;
  return home ? join(home, "bin", "java") : "java";
}

async function startProvider(dir: string): Promise<{ url: string; caFile: string }> {
  const classpath = [
    join(ROOT, "berth-agent/target/test-classes"),
    join(ROOT, "berth-agent/target/classes"),
    join(ROOT, "berth-cli/target/lib/*"),
  ].join(":");
  provider = spawn(java(), ["-cp", classpath, "dev.berth.agent.agentcli.FakeModelProviderMain", dir], {
    stdio: ["ignore", "ignore", "inherit"],
  });
  const file = join(dir, "provider.json");
  const deadline = Date.now() + 60_000;
  while (!existsSync(file)) {
    if (provider.exitCode !== null) throw new Error(`the fake provider exited with ${provider.exitCode}`);
    if (Date.now() > deadline) throw new Error("the fake provider did not start within 60 s");
    await new Promise((r) => setTimeout(r, 200));
  }
  return JSON.parse(readFileSync(file, "utf8")) as { url: string; caFile: string };
}

test.beforeAll(async () => {
  expect(existsSync(CLAUDE), "the pinned Claude Code CLI; bin/ensure-test-tools installs it").toBe(true);
  expect(existsSync(join(ROOT, "berth-agent/target/test-classes")), "berth-agent's test classes (make test builds them)").toBe(true);
  work = mkdtempSync(join(tmpdir(), "berth-web-approval-"));
  const fake = await startProvider(join(work, "provider"));
  writeFileSync(join(work, "token"), "sk-web-e2e-token-123456789\n");
  writeFileSync(
    join(work, "providers.json"),
    JSON.stringify({ "claude-code": { url: fake.url, tokenFile: join(work, "token"), caFile: fake.caFile } }),
  );
  server = await startServer([
    "--agent-cli",
    `claude-code=${CLAUDE}`,
    "--providers",
    join(work, "providers.json"),
    "--approval",
    "claude-code=all",
  ]);
});

test.afterAll(async () => {
  await server?.stop();
  provider?.kill("SIGTERM");
  if (work) rmSync(work, { recursive: true, force: true });
});

interface Entry {
  type: string;
  tool?: string;
  state?: string;
  reason?: string;
}

test("a held tool call waits on its card in every client, runs once approved, and a rejected one never runs", async ({
  page,
  context,
}) => {
  test.setTimeout(240_000);
  const created = await page.request.post(`${server.url}/api/v1/sessions`, {
    headers: AUTH,
    data: { name: "gated-agent", workloadType: "claude-code" },
    timeout: 150_000,
  });
  expect(created.status(), await created.text()).toBe(201);
  const id = ((await created.json()) as { id: string }).id;

  await page.goto(`${server.url}/login?token=${ADMIN_TOKEN}`);
  await page.goto(`${server.url}/agent/${id}`);
  const prompt = page.getByTestId("ws-prompt");
  const transcript = page.getByTestId("agent-transcript");

  // The model calls Bash: the proxy holds the call, and the card shows it with its arguments.
  await prompt.fill("please touch the marker");
  await prompt.press("Enter");
  const card = page.getByTestId("approval-card");
  await expect(card).toHaveCount(1, { timeout: 60_000 });
  await expect(card.getByTestId("approval-tool")).toHaveText("Bash");
  await expect(card.getByTestId("approval-arguments")).toContainText('"command": "touch marker.txt"');
  await expect(card.getByTestId("approval-countdown")).toContainText(/expires in \d+:\d\d/);
  await expect(card).toContainText("asked for");
  // Held, the call has not reached the CLI: no tool call in the transcript yet.
  await expect(transcript.getByTestId("tool-call")).toHaveCount(0);
  await screenshot(page, "approval");

  // Any client sees it: the console's card counts it, and the session opened elsewhere shows it.
  const other = await context.newPage();
  await other.goto(`${server.url}/`);
  const sessionCard = other.locator(`[data-session-id="${id}"]`);
  await expect(sessionCard.getByTestId("card-approvals")).toHaveText("1 approval waiting", { timeout: 15_000 });
  await screenshot(other, "console-approval");
  await other.goto(`${server.url}/agent/${id}`);
  await expect(other.getByTestId("approval-card")).toHaveCount(1, { timeout: 15_000 });
  await other.close();

  // Approved: the proxy releases the call, Claude Code runs it once, the turn goes on.
  await card.getByTestId("approval-reason").fill("the marker is harmless");
  await card.getByTestId("approval-approve").click();
  await expect(card).toHaveCount(0, { timeout: 15_000 });
  await expect(transcript.locator('[data-testid=turn-approval][data-state=approved]')).toContainText(
    "approved — Bash",
    { timeout: 60_000 },
  );
  const tool = transcript.getByTestId("tool-call");
  await expect(tool).toHaveCount(1, { timeout: 60_000 });
  await expect(tool).toContainText("Bash");
  await expect(tool).toContainText("ok", { timeout: 60_000 });
  await expect(transcript).toContainText("Done.", { timeout: 60_000 });
  const decided = page.getByTestId("approvals-decided");
  await expect(decided).toContainText("1 approval decided");
  await decided.locator("summary").click();
  await expect(decided).toContainText("approved by admin");
  await expect(decided).toContainText("the marker is harmless");

  // Rejected: the call is dropped, the turn ends with the reason, and nothing ran.
  await prompt.fill("run: touch rejected.txt");
  await prompt.press("Enter");
  await expect(card).toHaveCount(1, { timeout: 60_000 });
  await expect(card.getByTestId("approval-arguments")).toContainText("touch rejected.txt");
  await card.getByTestId("approval-reason").fill("not this one");
  await card.getByTestId("approval-reject").click();
  await expect(card).toHaveCount(0, { timeout: 15_000 });
  await expect(transcript.locator('[data-testid=turn-approval][data-state=rejected]')).toContainText(
    "rejected — Bash",
    { timeout: 60_000 },
  );
  await expect(transcript.locator('[data-testid=turn-approval][data-state=rejected]')).toContainText("not this one");
  await expect(transcript.getByTestId("tool-call")).toHaveCount(1);
  await expect(page.getByTestId("executions").locator("[data-execution-state=SUCCEEDED]")).toHaveCount(2, {
    timeout: 60_000,
  });

  // The server kept both decisions, newest first; the transcript has the proxy's marker lines.
  const approvals = await page.request.get(`${server.url}/api/v1/sessions/${id}/approvals`, { headers: AUTH });
  const items = ((await approvals.json()) as { items: { tool: string; state: string; reason?: string }[] }).items;
  expect(items.map((a) => [a.tool, a.state])).toEqual([
    ["Bash", "rejected"],
    ["Bash", "approved"],
  ]);
  // (Claude Code may write an answer's text more than once: the order is what is checked.)
  const page0 = await page.request.get(`${server.url}/api/v1/sessions/${id}/transcript?cursor=0`, { headers: AUTH });
  const marks = ((await page0.json()) as { entries: Entry[] }).entries
    .filter((e) => e.type === "approval")
    .map((e) => `${e.state} ${e.tool}`);
  expect(marks).toEqual(expect.arrayContaining(["pending Bash", "approved Bash", "rejected Bash"]));
  expect(marks.indexOf("pending Bash")).toBeLessThan(marks.indexOf("approved Bash"));
  expect(marks.indexOf("approved Bash")).toBeLessThan(marks.indexOf("rejected Bash"));

  // The console's badge is gone with the last pending approval.
  await page.goto(`${server.url}/`);
  const card0 = page.locator(`[data-session-id="${id}"]`);
  await expect(card0).toBeVisible();
  await expect(card0.getByTestId("card-approvals")).toHaveCount(0);
});
