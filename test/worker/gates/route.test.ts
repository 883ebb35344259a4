import { env } from "cloudflare:workers";
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { executeCall } from "../../../src/pipeline/execute";
import { createRegistry } from "../../../src/registry";
import { defineTool } from "../../../src/tool";
import { toolError } from "../../../src/errors";
import { DEMO_CONFIG } from "../../../worker/demo/tenant";
import { tenantGates } from "../../../worker/gates/address";
import { createGateLimiter } from "../../../worker/gates/limiter";
import { eventually, latch } from "../../wait";
import { ADMIN_KEY, CALL_KEY, json, request } from "../helpers/requests";

const uid = () => crypto.randomUUID().slice(0, 8);
const holdersOf = async (gate: string) => (await env.GATES.get(env.GATES.idFromName(gate)).snapshot()).holders;

/** A gated tool whose run is given by the test. */
const gated = (name: string, run: (signal: AbortSignal) => Promise<string>, timeoutMs = 5_000) =>
  defineTool({
    name,
    description: name,
    input: v.object({}),
    policy: { concurrency: { limit: 1 }, timeoutMs },
    run: (_args, ctx) => run(ctx.signal),
  });

const untilAborted = (signal: AbortSignal) =>
  new Promise<string>((_, reject) => signal.addEventListener("abort", () => reject(signal.reason), { once: true }));

describe("gates through the pipeline", () => {
  it("releases the slot on success, error, timeout and cancellation", async () => {
    const tenant = `rel-${uid()}`;
    const hanging = latch();
    const registry = createRegistry([
      gated("ok", async () => "done"),
      gated("boom", async () => {
        throw toolError("tool_error", "nope");
      }),
      gated("slow", untilAborted, 30),
      gated("hang", (signal) => (hanging.open(), untilAborted(signal))),
    ]);
    const options = { registry, tenant, limiter: createGateLimiter(tenantGates(env, tenant)) };
    const abort = new AbortController();
    // Cancelled while it runs, holding its slot (not while it waits for it).
    void hanging.opened.then(() => abort.abort());
    const results = await Promise.all([
      executeCall({ id: "c-ok", name: "ok", arguments: "{}" }, options),
      executeCall({ id: "c-boom", name: "boom", arguments: "{}" }, options),
      executeCall({ id: "c-slow", name: "slow", arguments: "{}" }, options),
      executeCall({ id: "c-hang", name: "hang", arguments: "{}" }, { ...options, signal: abort.signal }),
    ]);
    expect(results.map((r) => (r.ok ? "ok" : r.error.code))).toEqual(["ok", "tool_error", "timeout", "cancelled"]);
    for (const name of ["ok", "boom", "slow", "hang"]) expect(await holdersOf(`${tenant}:tool:${name}`)).toEqual([]);
  });
});

describe("gates over HTTP", () => {
  const tenantEnv = (name: string, policies: Record<string, unknown> = {}) => ({
    TOOLGATE_CONFIG: JSON.stringify({ name, tools: ["sleep", "add"], keys: DEMO_CONFIG.keys, policies }),
    TOOLGATE_DEMO: "false",
  });
  const sleepCalls = (...ms: number[]) => ({
    choices: [
      {
        message: {
          role: "assistant",
          tool_calls: ms.map((n, i) => ({
            id: `s${i}-${uid()}`,
            type: "function",
            function: { name: "sleep", arguments: JSON.stringify({ ms: n }) },
          })),
        },
      },
    ],
  });

  it("GET /v1/gates shows each gate's limit, holders and queue depth (admin only)", async () => {
    const name = `gates-${uid()}`;
    const options = { env: tenantEnv(name) };
    // A sleep long enough to be seen holding its slot however slow the machine; cancelled once seen.
    const running = request("/v1/calls/openai", { ...options, body: sleepCalls(20_000) });
    let body: any;
    await eventually(async () => {
      body = await json(await request("/v1/gates", { ...options, key: ADMIN_KEY }));
      return body.gates[0]?.holders.length > 0;
    }, "the sleep holds its slot");
    expect(
      (await request(`/v1/calls/${body.gates[0].holders[0].callId}/cancel`, { ...options, method: "POST" })).status,
    ).toBe(202);
    expect(body.gates).toEqual([
      {
        gate: `${name}:tool:sleep`,
        limit: 1,
        maxQueue: 64,
        holders: [
          { callId: expect.any(String), tool: "sleep", since: expect.any(Number), expiresAt: expect.any(Number) },
        ],
        queueDepth: 0,
        queued: [],
      },
    ]);
    expect((await running).status).toBe(200);
    expect((await request("/v1/gates", { ...options, key: CALL_KEY })).status).toBe(403);
    expect((await request("/v1/gates?limit=0", { ...options, key: ADMIN_KEY })).status).toBe(400);
  });

  it("a full gate answers busy inside a 200, not a 5xx", async () => {
    const options = { env: tenantEnv(`busy-${uid()}`, { sleep: { concurrency: { limit: 1, maxQueue: 0 } } }) };
    const res = await request("/v1/calls/openai", { ...options, body: sleepCalls(200, 200) });
    expect(res.status).toBe(200);
    const { calls } = await json(res);
    expect(calls.map((c: any) => c.error?.code ?? c.status).sort()).toEqual(["busy", "succeeded"]);
  });
});
