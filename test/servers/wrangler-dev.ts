import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A `wrangler dev` of this repo on 127.0.0.1 with its own empty state, for tests that need a real server. */
export interface DevServer {
  url: string;
  /** Everything wrangler printed (for failure messages). */
  output(): string;
  stop(): Promise<void>;
}

/** A port the OS says is free right now (a small race with other processes is acceptable for tests). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}

async function waitHealthy(url: string, child: ChildProcess, log: () => string, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (child.exitCode !== null) throw new Error(`wrangler dev exited with ${child.exitCode}:\n${log()}`);
    try {
      const response = await fetch(`${url}/healthz`);
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`wrangler dev did not answer /healthz within ${timeoutMs} ms:\n${log()}`);
}

/**
 * Starts `wrangler dev` (the demo tenant, unless `vars` say otherwise) on a free loopback port,
 * with persistence in a fresh temporary directory, and waits until /healthz answers.
 */
export async function startDevServer(options: { vars?: Record<string, string>; timeoutMs?: number } = {}): Promise<DevServer> {
  const port = await freePort();
  const inspector = await freePort();
  const state = mkdtempSync(join(tmpdir(), "toolgate-dev-"));
  const vars = Object.entries(options.vars ?? {}).flatMap(([name, value]) => ["--var", `${name}:${value}`]);
  const args = ["node_modules/wrangler/bin/wrangler.js", "dev", "--ip", "127.0.0.1", "--port", String(port), "--inspector-port", String(inspector)];
  args.push("--persist-to", state, "--show-interactive-dev-session=false", "--live-reload=false", "--log-level", "warn", ...vars);
  // detached: its own process group, so stop() ends wrangler and the workerd it started, and nothing else.
  const child = spawn(process.execPath, args, { cwd: process.cwd(), detached: true, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, WRANGLER_SEND_METRICS: "false" } });
  let log = "";
  child.stdout!.on("data", (chunk) => (log += chunk));
  child.stderr!.on("data", (chunk) => (log += chunk));
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null && child.pid !== undefined) {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      try {
        process.kill(-child.pid, "SIGTERM");
      } catch {
        // already gone
      }
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5_000))]);
      if (child.exitCode === null) {
        try {
          process.kill(-child.pid, "SIGKILL");
        } catch {
          // already gone
        }
      }
    }
    rmSync(state, { recursive: true, force: true });
  };
  try {
    await waitHealthy(url, child, () => log, options.timeoutMs ?? 60_000);
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, output: () => log, stop };
}
