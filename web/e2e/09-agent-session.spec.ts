import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ADMIN_TOKEN, startServer, type RunningServer } from "./global-setup";
import { expect, screenshot, test } from "./fixtures";

// A claude-code session from the web UI with the real Claude Code CLI (tools/agent-clis) in a real
// session. The model provider is the one fake here — none is reachable from the test machines:
// the Java FakeModelProvider of berth-agent's tests, run as a process, speaking the Anthropic
// Messages streaming API over HTTPS with scripted answers (one of them a Bash tool call).
const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const CLAUDE = join(ROOT, "tools/agent-clis/node_modules/.bin/claude");

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
  work = mkdtempSync(join(tmpdir(), "berth-web-agent-"));
  const fake = await startProvider(join(work, "provider"));
  writeFileSync(join(work, "token"), "sk-web-e2e-token-123456789\n");
  writeFileSync(
    join(work, "providers.json"),
    JSON.stringify({ "claude-code": { url: fake.url, tokenFile: join(work, "token"), caFile: fake.caFile } }),
  );
  // A marketplace of one plugin, offered by the dialog.
  mkdirSync(join(work, "plugins/probe/.claude-plugin"), { recursive: true });
  writeFileSync(join(work, "plugins/probe/.claude-plugin/plugin.json"), '{"name":"probe","version":"1.0.0"}');
  server = await startServer([
    "--agent-cli",
    `claude-code=${CLAUDE}`,
    "--providers",
    join(work, "providers.json"),
    "--plugins-dir",
    join(work, "plugins"),
  ]);
});

test.afterAll(async () => {
  await server?.stop();
  provider?.kill("SIGTERM");
  if (work) rmSync(work, { recursive: true, force: true });
});

test("a claude-code session from the UI answers a prompt, runs a tool, and keeps its transcript across a reload", async ({
  page,
}) => {
  await page.goto(`${server.url}/login?token=${ADMIN_TOKEN}`);
  await page.getByTestId("new-session").click();
  const dialog = page.getByTestId("new-session-dialog");
  await dialog.getByLabel("Name").fill("agent-from-the-ui");
  await dialog.getByRole("radio", { name: /claude-code/ }).check();
  await dialog.getByTestId("plugins").getByLabel("probe").check();
  await page.getByTestId("create-session").click();
  await expect(page).toHaveURL(/\/agent\/[0-9a-f]{32}$/, { timeout: 90_000 });
  const id = page.url().split("/").pop();
  const created = await page.request.get(`${server.url}/api/v1/sessions/${id}`, {
    headers: { Authorization: `Bearer ${ADMIN_TOKEN}` },
  });
  expect((await created.json()).plugins).toEqual(["probe"]);

  const prompt = page.getByTestId("ws-prompt");
  await prompt.fill("hello, my name is Dharma");
  await prompt.press("Enter");
  const transcript = page.getByTestId("agent-transcript");
  await expect(transcript.getByTestId("turn")).toHaveCount(1, { timeout: 60_000 });
  await expect(transcript).toContainText("▸ hello, my name is Dharma");
  await expect(transcript).toContainText("Hello from the fake provider.", { timeout: 60_000 });
  await expect(transcript.getByTestId("turn-usage").first()).toContainText("tokens in");

  await prompt.fill("please touch the marker");
  await prompt.press("Enter");
  const tool = transcript.getByTestId("tool-call");
  await expect(tool).toHaveCount(1, { timeout: 60_000 });
  await expect(tool).toContainText("Bash");
  await expect(tool).toContainText("ok", { timeout: 60_000 });
  await tool.locator("summary").click();
  await expect(tool).toContainText("touch marker.txt");
  await expect(page.getByTestId("executions").locator("[data-execution-state=SUCCEEDED]")).toHaveCount(2, {
    timeout: 60_000,
  });
  await screenshot(page, "agent-session");

  // The raw output is one click away, closed: the transcript already shows the answers.
  const raw = page.getByTestId("raw-output");
  await expect(raw).not.toHaveAttribute("open");
  await expect(page.getByTestId("transcript")).toHaveCount(0);
  await raw.locator("summary").click();
  await expect(page.getByTestId("transcript")).toBeVisible();

  // A reload reads the transcript again: the same two turns, in order, nothing twice.
  await page.reload();
  await expect(transcript.getByTestId("turn")).toHaveCount(2, { timeout: 30_000 });
  await expect(transcript.getByTestId("turn").first()).toContainText("hello, my name is Dharma");
  await expect(transcript.getByTestId("tool-call")).toHaveCount(1);
  // It opens at the newest turn, not the oldest.
  await expect
    .poll(() => transcript.evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight))
    .toBeLessThanOrEqual(40);

  // "Refresh plugin skills" takes the marketplace's plugins anew; the transcript stays as it was.
  await expect(page.getByTestId("plugins")).toContainText("probe");
  await page.getByTestId("plugins-refresh").click();
  await expect(page.getByTestId("toast").filter({ hasText: "Plugins refreshed: probe" })).toBeVisible({
    timeout: 30_000,
  });
  await expect(transcript.getByTestId("turn")).toHaveCount(2);
});
