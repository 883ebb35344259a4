import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDevServer, type DevServer } from "../../servers/wrangler-dev";

/**
 * Code mode under `wrangler dev` (the Worker Loader binding as wrangler serves it locally, real Durable
 * Objects, real sockets): a program's calls are normal calls with their own records, and the sandbox
 * reaches no network (a loopback server counts what reaches it).
 */

const CALL_HASH = "06311ac15f2412fb7144a9977924f7a6a137403f1201f5bd0588cc02cd08e33f"; // dev-call-key
let dev: DevServer;
let hits = 0;
const bystander = createServer((_req, res) => {
  hits++;
  res.end("reached");
});
let bystanderUrl = "";

beforeAll(async () => {
  await new Promise<void>((resolve) => bystander.listen(0, "127.0.0.1", resolve));
  bystanderUrl = `http://127.0.0.1:${(bystander.address() as AddressInfo).port}/`;
  const config = {
    name: "code-dev",
    tools: ["add", "echo"],
    keys: [{ name: "app", hash: CALL_HASH, scopes: ["call"] }],
    egress: { allowHttpHosts: ["127.0.0.1"] },
    codeMode: { timeoutMs: 10_000 },
  };
  dev = await startDevServer({ vars: { TOOLGATE_CONFIG: JSON.stringify(config), TOOLGATE_DEMO: "false" } });
}, 120_000);
afterAll(async () => {
  await dev?.stop();
  await new Promise<void>((resolve) => bystander.close(() => resolve()));
});

/** One run of the code tool through the HTTP API, as a model's tool call. */
async function run(id: string, code: string) {
  const res = await fetch(`${dev.url}/v1/calls`, {
    method: "POST",
    headers: { authorization: "Bearer dev-call-key", "content-type": "application/json" },
    body: JSON.stringify([
      { id, type: "function", function: { name: "run_code", arguments: JSON.stringify({ code }) } },
    ]),
  });
  const body = (await res.json()) as { calls: { status: string; output?: { structured?: any }; error?: any }[] };
  expect(res.status, JSON.stringify(body)).toBe(200);
  return body.calls[0]!;
}

async function record(id: string) {
  const res = await fetch(`${dev.url}/v1/calls/${id}`, { headers: { authorization: "Bearer dev-call-key" } });
  return ((await res.json()) as { record: { status: string; parent?: string; tool: string } }).record;
}

describe("code mode under wrangler dev", () => {
  it("runs a program whose calls are normal calls, each recorded with the run as parent", async () => {
    const id = `run-${crypto.randomUUID().slice(0, 8)}`;
    const code = [
      "const first = await tools.add({ a: 1, b: 2 });",
      "const second = await tools.add({ a: first.sum, b: 3 });",
      'console.log("sum", second.sum);',
      "return second.sum;",
    ].join("\n");
    const answer = await run(id, code);
    expect(answer.status, JSON.stringify(answer.error)).toBe("succeeded");
    expect(answer.output!.structured).toMatchObject({
      result: 6,
      logs: ["sum 6"],
      calls: [
        { callId: `${id}.1`, tool: "add", status: "succeeded" },
        { callId: `${id}.2`, tool: "add", status: "succeeded" },
      ],
    });
    expect(await record(`${id}.2`)).toMatchObject({ tool: "add", status: "succeeded", parent: id });
  });

  it("reaches no network from the sandbox: fetch fails in the program, nothing arrives", async () => {
    const id = `run-${crypto.randomUUID().slice(0, 8)}`;
    const reach = `await fetch(${JSON.stringify(bystanderUrl)}); return "reached";`;
    const code = `try { ${reach} } catch (e) { return String(e); }`;
    const answer = await run(id, code);
    expect(answer.status, JSON.stringify(answer.error)).toBe("succeeded");
    expect(answer.output!.structured.result).not.toBe("reached");
    expect(hits).toBe(0);
    // The bystander does answer a request that is not the sandbox's.
    expect(await (await fetch(bystanderUrl)).text()).toBe("reached");
  });

  it("ends an endless loop with its line, and the server goes on serving", async () => {
    const answer = await run(`run-${crypto.randomUUID().slice(0, 8)}`, "let n = 0;\nwhile (true) n++;");
    expect(answer.status).toBe("failed");
    expect(answer.error!.message).toMatch(/^RangeError \(line 2\): The program ran more than \d+ loop turns/);
    const next = await run(`run-${crypto.randomUUID().slice(0, 8)}`, "return 1 + 1;");
    expect(next.output!.structured.result).toBe(2);
  });
});
