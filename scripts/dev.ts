/**
 * `npm run dev`: the Worker of wrangler.toml (the demo tenant) under wrangler's dev server, printing
 * one line per call. `wrangler dev` itself prints a line of its own for every request besides the
 * Worker's line per call, and its only switch for them (--log-level) hides the Worker's console.log
 * as well (wrangler's levels: warn < info < log). So this runs the same dev server through wrangler's
 * API: wrangler at level warn (its warnings and errors, a failed build, still show), and every line
 * the Worker logs printed as it is, errors and warnings on stderr. Without the debugger (`npx wrangler
 * dev` has it), whose relay of each console.log costs CPU per line. Edits reload it, as wrangler dev.
 * With --idp <port> it also starts the demo identity provider (scripts/idp/demo-idp.ts) on that port
 * and hands the demo tenant its issuer and client secret (worker/demo/identity.ts): `npm run dev:idp`.
 * Usage: node scripts/run-ts.mjs scripts/dev.ts [--ip 127.0.0.1] [--port 8787] [--persist-to <dir>] [--idp <port>]
 */
import { watchFile } from "node:fs";
import { parseArgs } from "node:util";
import { unstable_startWorker } from "wrangler";
import { buildStatusPath, readBuildStatus } from "./build-status.mjs";
import { type DemoIdp, startDemoIdp } from "./idp/demo-idp";

const options = {
  ip: { type: "string", default: "127.0.0.1" },
  port: { type: "string", default: "8787" },
  // Where Durable Objects, KV and the rest keep local state: .wrangler/state by default, as wrangler dev.
  "persist-to": { type: "string" },
  // The demo identity provider's port: people sign in to the console as alice or bob.
  idp: { type: "string" },
} as const;
const { values } = parseArgs({ options });
const port = Number(values.port);
if (!Number.isInteger(port) || port < 1 || port > 65_535) {
  console.error(`--port must be a TCP port (1-65535), not ${JSON.stringify(values.port)}`);
  process.exit(2);
}
// toolgate never reads request.cf: no download of its template (and no network needed).
process.env.CLOUDFLARE_CF_FETCH_ENABLED ??= "false";

let idp: DemoIdp | undefined;
if (values.idp !== undefined) {
  const idpPort = Number(values.idp);
  if (!Number.isInteger(idpPort) || idpPort < 1 || idpPort > 65_535 || idpPort === port) {
    console.error(`--idp must be a TCP port other than --port, not ${JSON.stringify(values.idp)}`);
    process.exit(2);
  }
  const hosts = new Set([values.ip, "127.0.0.1", "localhost"]);
  idp = await startDemoIdp({ port: idpPort, redirectUris: [...hosts].map((h) => `http://${h}:${port}/auth/callback`) });
}
const idpVars = idp
  ? {
      TOOLGATE_DEV_IDP: { type: "plain_text" as const, value: idp.url },
      TOOLGATE_DEV_IDP_SECRET: { type: "plain_text" as const, value: idp.clientSecret },
    }
  : {};

const worker = await unstable_startWorker({
  config: "wrangler.toml",
  ...(idp ? { bindings: idpVars } : {}),
  dev: {
    server: { hostname: values.ip, port },
    ...(values["persist-to"] === undefined ? {} : { persist: values["persist-to"] }),
    inspector: false,
    logLevel: "warn",
    structuredLogsHandler: ({ level, message }: { level: string; message: string }) => {
      (level === "error" || level === "warn" ? process.stderr : process.stdout).write(`${message}\n`);
    },
  },
});
const stop = () => void Promise.all([worker.dispose(), idp?.stop()]).then(() => process.exit(0));
process.once("SIGINT", stop);
process.once("SIGTERM", stop);
try {
  await worker.ready;
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  await Promise.all([worker.dispose(), idp?.stop()]);
  process.exit(1);
}
printBuildStatus();
const origin = (await worker.url).origin;
console.log(`toolgate: ready on ${origin} (Ctrl-C stops it)`);
if (idp) console.log(`Demo sign-in: ${origin} → "Sign in with Demo IdP" → alice (admin) or bob, any password`);

/**
 * Each build's outcome, printed when it changes: wrangler shows the build command's own output only at
 * a log level that would bring back its line per request. A failed build names the problem and its
 * file (requests answer 503 build_failed meanwhile); the next good build says so.
 */
function printBuildStatus(): void {
  const root = process.cwd();
  let failed = false;
  const print = () => {
    const status = readBuildStatus(root);
    if (!status) return;
    if (!status.ok) {
      failed = true;
      const where = status.file ? ` (${status.file})` : "";
      process.stderr.write(
        `toolgate: the build failed${where}; requests answer 503 build_failed until it is fixed:\n${status.message}\n`,
      );
    } else if (failed) {
      failed = false;
      console.log("toolgate: the build passes again; tools are served.");
    }
  };
  print();
  watchFile(buildStatusPath(root), { interval: 300 }, print).unref();
}
