import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { freePort } from "../../test/servers/wrangler-dev";
import { startAuthProxy } from "./proxy";

/**
 * npm run test:conformance: the official MCP conformance suite (server mode) against `wrangler dev`
 * serving the conformance tenant (scripts/conformance/tenant.json: demo tools plus the suite's
 * fixture tools, which only the test entry test/fixtures/worker.ts offers). Every server scenario runs except those needing server-to-client requests
 * (sampling, elicitation); expected-failures.yaml lists the features toolgate does not offer.
 * Exit code 0 only when every scenario passes or fails as expected (and no expected failure passes).
 */

const HERE = resolve("scripts/conformance");
const KEY = "conformance-key";
const SERVER_TO_CLIENT = /sampling|elicitation/;
const CONFORMANCE = resolve("node_modules/@modelcontextprotocol/conformance/dist/index.js");
const WRANGLER = resolve("node_modules/wrangler/bin/wrangler.js");
/** wrangler.toml's Worker with the test catalogue: production builds do not ship the fixture tools. */
const TEST_ENTRY = "test/fixtures/worker.ts";

function run(args: string[], quiet = false): Promise<{ code: number; output: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    const take = (chunk: Buffer) => {
      output += chunk;
      if (!quiet) process.stdout.write(chunk);
    };
    child.stdout.on("data", take);
    child.stderr.on("data", take);
    child.on("close", (code) => done({ code: code ?? 1, output }));
  });
}

async function startWrangler(port: number): Promise<ChildProcess> {
  const config = JSON.stringify(JSON.parse(readFileSync(resolve(HERE, "tenant.json"), "utf8")));
  const args = [WRANGLER, "dev", TEST_ENTRY, "--ip", "127.0.0.1", "--port", String(port), "--inspector-port", String(await freePort())];
  args.push("--persist-to", ".tmp/conformance-state", "--show-interactive-dev-session=false", "--log-level", "warn");
  args.push("--var", `TOOLGATE_CONFIG:${config}`);
  // Its own process group, so stopping it also stops the workerd it starts. No fetch of the
  // Request.cf template: toolgate never reads request.cf, and the run stays on loopback.
  const env = { ...process.env, CLOUDFLARE_CF_FETCH_ENABLED: "false" };
  const child = spawn(process.execPath, args, { stdio: ["ignore", "inherit", "inherit"], detached: true, env });
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`wrangler dev exited with ${child.exitCode}`);
    const ready = await fetch(`http://127.0.0.1:${port}/healthz`).then((res) => res.ok, () => false);
    if (ready) return child;
    await new Promise((done) => setTimeout(done, 500));
  }
  throw new Error("wrangler dev did not answer /healthz within 90 s");
}

async function scenarios(): Promise<string[]> {
  const { output } = await run([CONFORMANCE, "list", "--server"], true);
  return [...output.matchAll(/^\s+- ([\w-]+)/gm)].map((match) => match[1]!);
}

async function main(): Promise<number> {
  const wranglerPort = await freePort();
  const wrangler = await startWrangler(wranglerPort);
  const proxy = await startAuthProxy(wranglerPort, KEY);
  try {
    const all = await scenarios();
    if (all.length === 0) throw new Error("the conformance CLI listed no server scenarios");
    const chosen = all.filter((name) => !SERVER_TO_CLIENT.test(name));
    console.log(`Running ${chosen.length} of ${all.length} server scenarios (skipped: ${all.filter((n) => SERVER_TO_CLIENT.test(n)).join(", ")})`);
    const url = `http://127.0.0.1:${proxy.port}/mcp`;
    const failed: string[] = [];
    const expected: string[] = [];
    for (const scenario of chosen) {
      const args = [CONFORMANCE, "server", "--url", url, "--scenario", scenario, "--expected-failures", resolve(HERE, "expected-failures.yaml")];
      const { code, output } = await run(args);
      // The CLI marks a failure listed in the baseline with "~ <scenario>" and exits 0 for it.
      if (code !== 0) failed.push(scenario);
      else if (output.includes(`~ ${scenario}`)) expected.push(scenario);
    }
    const skipped = all.length - chosen.length + expected.length;
    console.log(`Expected failures (not offered): ${expected.join(", ") || "none"}`);
    if (failed.length > 0) console.log(`Unexpected results: ${failed.join(", ")}`);
    console.log(`conformance: ${chosen.length - failed.length - expected.length} passed, ${failed.length} failed, ${skipped} skipped`);
    return failed.length === 0 ? 0 : 1;
  } finally {
    await proxy.close();
    if (wrangler.pid !== undefined) process.kill(-wrangler.pid, "SIGTERM");
  }
}

process.exitCode = await main();
