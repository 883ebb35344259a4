import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { unstable_startWorker } from "wrangler";

/** The Worker of this repo served like `wrangler dev`, on 127.0.0.1, for tests that need a real server. */
export interface DevServer {
  url: string;
  stop(): Promise<void>;
}

/** A port the OS says is free right now (a small race with other processes is acceptable for tests). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port")),
      );
    });
  });
}

/** What startDevServer serves: by default the demo tenant of this checkout, files not watched. */
export interface DevServerOptions {
  vars?: Record<string, string>;
  /** Another entry module than wrangler.toml's main. */
  entrypoint?: string;
  /** Another checkout (test/servers/scratch-checkout.ts) whose wrangler.toml is served. */
  root?: string;
  /** Rebuild and reload when tools/ or tenants/ change, as `wrangler dev` does. */
  watch?: boolean;
  /** The port on 127.0.0.1 (default: a free one), for callers that must name it first (an IdP's redirect URI). */
  port?: number;
}

/**
 * Starts the Worker from wrangler.toml (the demo tenant unless `vars` say otherwise; its entry unless
 * `entrypoint` names another) with wrangler's dev server: static assets, Durable Objects and SQLite as
 * in `wrangler dev`. State lives in a fresh temporary directory; file watching is off unless `watch`,
 * so edits elsewhere in the checkout never restart it mid-test. Resolves once /healthz answers 200.
 */
export async function startDevServer(options: DevServerOptions = {}): Promise<DevServer> {
  process.env.WRANGLER_LOG ??= "warn"; // no line per request in test output
  process.env.CLOUDFLARE_CF_FETCH_ENABLED ??= "false"; // tests stay on loopback: no fetch of the Request.cf template
  const state = mkdtempSync(join(tmpdir(), "toolgate-dev-"));
  const bindings = Object.fromEntries(
    Object.entries(options.vars ?? {}).map(([name, value]) => [name, { type: "plain_text" as const, value }]),
  );
  const worker = await unstable_startWorker({
    config: join(options.root ?? ".", "wrangler.toml"),
    // The test entry (test/fixtures/worker.ts) offers the fixture tools production does not ship.
    ...(options.entrypoint ? { entrypoint: options.entrypoint } : {}),
    // wrangler runs the build command in its own working directory unless told: the served checkout's.
    ...(options.root ? { build: { custom: { workingDirectory: options.root } } } : {}),
    bindings,
    dev: {
      server: { hostname: "127.0.0.1", port: options.port ?? (await freePort()) },
      inspector: false,
      watch: options.watch ?? false,
      persist: state,
      liveReload: false,
    },
  });
  const stop = async () => {
    await worker.dispose();
    rmSync(state, { recursive: true, force: true });
  };
  try {
    await worker.ready;
    const url = (await worker.url).origin;
    const health = await fetch(`${url}/healthz`);
    if (!health.ok) throw new Error(`/healthz answered ${health.status}: ${await health.text()}`);
    return { url, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
