/**
 * `wrangler dev` as a child process for the HTTP benches: served from a snapshot of the sources (other
 * work in this checkout must not make wrangler rebuild mid-run), optionally from a generated wrangler
 * config, on 127.0.0.1 only, stopped with Ctrl-C as a developer would.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { cpSync, existsSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { freePort } from "../../test/servers/wrangler-dev";

// Wrangler needs Node ≥ 22: the project's node@22 when this runs under an older one.
export const NODE = existsSync(resolve("node_modules/node/bin/node"))
  ? resolve("node_modules/node/bin/node")
  : process.execPath;
export const WRANGLER = resolve("node_modules/wrangler/bin/wrangler.js");
const START_WORKER = resolve("bench/lib/start-worker.mjs");
/** A static asset: answered by wrangler's asset worker, so polling it never runs the Worker's code. */
export const READY_PATH = "/bench-ready.txt";

/**
 * A copy of what the Worker is built from, in `dir/app`. `patch` may edit the copy (bench-only
 * variants); the checkout itself is never touched. The console's assets are replaced by one file.
 */
export function snapshot(dir: string, patch?: (app: string) => void): string {
  const app = resolve(dir, "app");
  rmSync(app, { recursive: true, force: true });
  mkdirSync(resolve(app, "dist/web"), { recursive: true });
  // tools/, tenants/ and scripts/: wrangler.toml's build command checks the tenants against the tools.
  for (const path of [
    "src",
    "worker",
    "tools",
    "tenants",
    "scripts",
    "package.json",
    "wrangler.toml",
    "tsconfig.json",
    "tsconfig.base.json",
  ]) {
    if (existsSync(path)) cpSync(path, resolve(app, path), { recursive: true });
  }
  writeFileSync(resolve(app, "dist/web", READY_PATH.slice(1)), "ready\n");
  symlinkSync(resolve("node_modules"), resolve(app, "node_modules"));
  patch?.(app);
  return app;
}

export interface DevServer {
  url: string;
  process: ChildProcess;
  /** What waitReady polls: READY_PATH unless the Worker serves no assets. */
  readyPath: string;
  /** With INSPECTOR=on: the DevTools port of its Worker (bench/profile-http.ts). */
  inspectorPort?: number;
}

/**
 * Whether the benches' wrangler dev has its debugger attached: `INSPECTOR=on` runs the CLI
 * (`npx wrangler dev`); the default (off) runs the same runtime through wrangler's API without it (see
 * start-worker.mjs: the inspector's relay of console.log is a dev-tool cost production does not have).
 */
export const INSPECTOR = process.env.INSPECTOR === "on";

/** Starts wrangler dev in `app` (its wrangler.toml, or `config`), state under `home`. */
export async function startDev(options: {
  app: string;
  home: string;
  config?: string;
  readyPath?: string;
}): Promise<DevServer> {
  rmSync(options.home, { recursive: true, force: true });
  mkdirSync(options.home, { recursive: true });
  const port = await freePort();
  const state = resolve(options.home, "state");
  const inspectorPort = INSPECTOR ? await freePort() : undefined;
  const args = INSPECTOR
    ? [
        WRANGLER,
        "dev",
        "--ip",
        "127.0.0.1",
        "--port",
        String(port),
        "--inspector-port",
        String(inspectorPort),
        "--persist-to",
        state,
        "--log-level",
        "warn",
        "--show-interactive-dev-session=false",
        ...(options.config ? ["--config", options.config] : []),
      ]
    : [START_WORKER, options.app, String(port), state, ...(options.config ? [options.config] : [])];
  const child = spawn(NODE, args, {
    cwd: options.app,
    stdio: ["ignore", "ignore", "inherit"],
    // Loopback only: no fetch of the Request.cf template.
    env: { ...process.env, CLOUDFLARE_CF_FETCH_ENABLED: "false" },
  });
  return {
    url: `http://127.0.0.1:${port}`,
    process: child,
    readyPath: options.readyPath ?? READY_PATH,
    ...(inspectorPort ? { inspectorPort } : {}),
  };
}

/** Resolves once the server answers its readyPath; throws when it exits or `timeoutMs` passes. */
export async function waitReady(server: DevServer, timeoutMs = 90_000): Promise<void> {
  const end = performance.now() + timeoutMs;
  while (performance.now() < end) {
    if (server.process.exitCode !== null) throw new Error(`wrangler dev exited (${server.process.exitCode})`);
    try {
      if ((await fetch(server.url + server.readyPath)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`wrangler dev on ${server.url} never answered`);
}

/** Ctrl-C (wrangler then stops workerd); a hard kill after 5 s. */
export async function stopDev(server: DevServer | undefined): Promise<void> {
  const child = server?.process;
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once("exit", r));
  child.kill("SIGINT");
  const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
  await exited;
  clearTimeout(timer);
}
