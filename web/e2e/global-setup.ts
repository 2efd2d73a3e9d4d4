// Starts the real distribution, `bin/berth server`, on a free loopback port with a fresh data
// directory and a known admin token, the way a user starts it; the returned teardown stops it and
// the node it started (nodes outlive the server by design), then removes the data directory.

import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const ADMIN_TOKEN = "e2e-web-admin-token-" + "x".repeat(32);
const ROOT = fileURLToPath(new URL("../..", import.meta.url));

function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once("error", fail);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => done(port));
    });
  });
}

async function awaitHealthy(url: string, server: ChildProcess, log: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (server.exitCode !== null) {
      throw new Error(`bin/berth server exited with ${server.exitCode}; see ${log}`);
    }
    try {
      const response = await fetch(`${url}/healthz`);
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`bin/berth server did not answer /healthz within 60 s; see ${log}`);
}

/**
 * Stops the node the server started (it outlives the server by design) and waits for it to exit:
 * a node still shutting down writes into the data directory, and removing the directory under it
 * left a half-removed copy in the system's temp directory.
 */
async function stopNode(dataDir: string): Promise<void> {
  const info = join(dataDir, "node", "node.json");
  if (!existsSync(info)) return;
  const pid = (JSON.parse(readFileSync(info, "utf8")) as { pid?: number }).pid;
  if (!pid) return;
  try {
    process.kill(pid, "SIGTERM");
  } catch {
    return; // already gone
  }
  for (let waited = 0; waited < 30_000; waited += 100) {
    try {
      process.kill(pid, 0);
    } catch {
      return; // exited
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    // exited just now
  }
}

export interface RunningServer {
  url: string;
  stop(): Promise<void>;
}

/** Starts `bin/berth server` with `args` added (e.g. shorter idle times) on its own data directory. */
export async function startServer(args: string[] = []): Promise<RunningServer> {
  if (!existsSync(join(ROOT, "berth-cli/target/berth-cli.jar"))) {
    throw new Error("build the distribution first (make build): berth-cli/target/berth-cli.jar is missing");
  }
  const port = await freePort();
  const work = mkdtempSync(join(tmpdir(), "berth-web-e2e-"));
  const dataDir = join(work, "data");
  const log = join(work, "server.log");
  const out = openSync(log, "a");
  const env: NodeJS.ProcessEnv = { ...process.env, BERTH_ADMIN_TOKEN: ADMIN_TOKEN };
  delete env.BERTH_FAILPOINTS;
  const server = spawn(
    join(ROOT, "bin/berth"),
    ["server", "--listen", `127.0.0.1:${port}`, "--data-dir", dataDir, ...args],
    { cwd: ROOT, env, stdio: ["ignore", out, out] },
  );
  const url = `http://127.0.0.1:${port}`;
  await awaitHealthy(url, server, log);

  const stop = async () => {
    server.kill("SIGTERM");
    await new Promise<void>((done) => {
      if (server.exitCode !== null) return done();
      const timer = setTimeout(() => {
        server.kill("SIGKILL");
        done();
      }, 15_000);
      server.once("exit", () => {
        clearTimeout(timer);
        done();
      });
    });
    await stopNode(dataDir);
    if (process.env.BERTH_E2E_KEEP) {
      console.log(`kept ${work}`);
      return;
    }
    try {
      // Retries: a file the node's last writes left may appear while the tree is being removed.
      rmSync(work, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
    } catch (e) {
      console.warn(`could not remove ${work}: ${String(e)}`);
    }
  };
  return { url, stop };
}

export default async function globalSetup() {
  const server = await startServer();
  process.env.BERTH_E2E_URL = server.url;
  process.env.BERTH_E2E_TOKEN = ADMIN_TOKEN;
  return server.stop;
}
