import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { DEMO_KEYS } from "../../../worker/demo/tenant";
import { freePort } from "../../servers/wrangler-dev";
import { eventually } from "../../wait";

/**
 * What `npm run dev` prints for each call: its command as package.json has it (after the console's
 * build, which the API does not need), on a port and a state directory of its own, as a developer's
 * shell runs it. Every call is one line, the Worker's JSON line; nothing else is printed meanwhile.
 */

let child: ChildProcess;
let exited: Promise<unknown>;
let output = "";
let url: string;
let state: string;

beforeAll(async () => {
  mkdirSync("dist/web", { recursive: true }); // wrangler.toml serves the console from here; the API needs no build
  const script = (JSON.parse(readFileSync("package.json", "utf8")) as { scripts: { dev: string } }).scripts.dev;
  const port = await freePort();
  state = mkdtempSync(join(tmpdir(), "toolgate-dev-logs-"));
  const serve = script.replace(/^npm run build:web && /, "").replace("--port 8787", `--port ${port}`);
  const command = `${serve} --persist-to ${state}`;
  expect(command).toContain(`--port ${port}`);
  // As `npm run` runs it: node_modules/.bin first on the PATH, and no log level of this test run's.
  const { WRANGLER_LOG: _, ...env } = process.env;
  child = spawn("sh", ["-c", command], {
    detached: true,
    env: { ...env, PATH: `${resolve("node_modules/.bin")}:${process.env.PATH}` },
    stdio: ["ignore", "pipe", "pipe"],
  });
  exited = new Promise((done) => child.once("exit", done));
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  url = `http://127.0.0.1:${port}`;
  const healthy = async () => (await fetch(`${url}/healthz`).catch(() => undefined))?.ok === true;
  await eventually(healthy, `npm run dev answers on ${url}\n${output}`, 120_000);
}, 150_000);

afterAll(async () => {
  // The whole process group, as Ctrl-C in the developer's terminal.
  if (child?.pid !== undefined && child.exitCode === null) {
    process.kill(-child.pid, "SIGINT");
    await exited;
  }
  if (state) rmSync(state, { recursive: true, force: true });
}, 30_000);

const addCall = (id: string) => ({ id, type: "function", function: { name: "add", arguments: '{"a":1,"b":2}' } });

async function run(...ids: string[]): Promise<void> {
  const res = await fetch(`${url}/v1/calls/openai`, {
    method: "POST",
    headers: { authorization: `Bearer ${DEMO_KEYS.call}`, "content-type": "application/json" },
    body: JSON.stringify(ids.map(addCall)),
  });
  expect(res.status).toBe(200);
  await res.text();
}

it("prints one line per call, the Worker's line of JSON, and nothing else meanwhile", async () => {
  const tag = crypto.randomUUID().slice(0, 8);
  const [first, second, last] = [`logs-${tag}-1`, `logs-${tag}-2`, `logs-${tag}-3`];
  await run(first, second);
  await run(last);
  // Until the last call's line has been printed in full.
  const printed = () => output.includes(last) && output.indexOf("\n", output.indexOf(last)) > 0;
  await eventually(printed, `the line of ${last}\n${output}`, 30_000);
  const from = output.lastIndexOf("\n", output.indexOf(first)) + 1;
  const to = output.indexOf("\n", output.indexOf(last));
  const lines = output.slice(from, to).split("\n");
  expect(lines, output.slice(from)).toHaveLength(3);
  const parsed = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  expect(parsed.map(({ msg, callId, tool, status }) => ({ msg, callId, tool, status }))).toEqual(
    [first, second, last].map((callId) => ({ msg: "call", callId, tool: "add", status: "succeeded" })),
  );
});
