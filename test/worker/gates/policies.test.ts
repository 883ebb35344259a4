import { evictDurableObject, runDurableObjectAlarm } from "cloudflare:test";
import { env as bindings } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { tenantGates } from "../../../worker/gates/address";
import { createGateLimiter } from "../../../worker/gates/limiter";
import { callTools, uid, upstreams } from "../helpers/adapters";
import { expectNoSlotHeld, faultTenant } from "../helpers/faults";
import { eventually, waitPast } from "../../wait";
import { ADMIN_KEY, json, request } from "../helpers/requests";

/**
 * concurrency.group, concurrency.key (code and JSON Pointer) and maxWaitMs in workerd, with real
 * Gate objects. A gate the test holds stands in for a running call, so who waits where is decided
 * by the gates, never by timing: released, the waiters' sleeps report when they ran.
 */

const gateStub = (gate: string) => bindings.GATES.get(bindings.GATES.idFromName(gate));

/** Takes the only slot of `gate` for "holder"; release it with stub.release("holder"). */
async function holdGate(gate: string, tenant: string) {
  const stub = gateStub(gate);
  const held = await stub.acquire({
    gate,
    callId: "holder",
    tool: "holder",
    rules: { limit: 1, maxQueue: 16 },
    leaseMs: 60_000,
    askedAt: Date.now(),
    pollMs: 5_000,
    tenant,
  });
  expect(held.ok).toBe(true);
  return stub;
}

type Interval = { startedAt: number; endedAt: number };

/** The sleeps' own intervals, in start order: each begins after `freed` and after the previous one ended. */
function expectOneAfterAnother(records: any[], freed: number): Interval[] {
  expect(records.map((r) => r.status)).toEqual(records.map(() => "succeeded"));
  const runs: Interval[] = records.map((r) => r.output.structured).sort((a, b) => a.startedAt - b.startedAt);
  expect(runs[0]!.startedAt).toBeGreaterThanOrEqual(freed);
  for (let i = 1; i < runs.length; i++) expect(runs[i]!.startedAt).toBeGreaterThanOrEqual(runs[i - 1]!.endedAt);
  return runs;
}

async function gateNames(env: Record<string, unknown>): Promise<string[]> {
  return (await json(await request("/v1/gates", { env, key: ADMIN_KEY }))).gates.map((g: { gate: string }) => g.gate);
}

describe("concurrency.group", () => {
  const cases = [
    { how: "set in code", tools: ["fixture_pair_a", "fixture_pair_b"], group: "fixture_pair", patch: {} },
    {
      how: "set by the tenant's policies",
      tools: ["sleep", "sleep_pool"],
      group: "naps",
      patch: {
        policies: {
          sleep: { concurrency: { limit: 1, group: "naps" } },
          sleep_pool: { concurrency: { limit: 1, group: "naps" } },
        },
      },
    },
  ];
  for (const { how, tools, group, patch } of cases) {
    it(`(${how}) two tools sharing a group wait at one gate and never run together beyond its limit`, async () => {
      const { name, env } = faultTenant("grp", { tools, ...patch });
      const stub = await holdGate(`${name}:group:${group}`, name);
      const [a, b] = tools as [string, string];
      const running = callTools(env, [a, { ms: 30 }], [b, { ms: 30 }], [a, { ms: 30 }], [b, { ms: 30 }]);
      await eventually(async () => (await stub.snapshot()).queueDepth === 4, "all four wait at the group's gate");
      const freed = Date.now();
      await stub.release("holder");

      expectOneAfterAnother((await running).records, freed);
      expect(await gateNames(env)).toEqual([`${name}:group:${group}`]); // no gate of either tool's own
      await expectNoSlotHeld(env);
    });
  }
});

describe("concurrency.key", () => {
  it("(a function in code) one resource runs one call at a time, another runs meanwhile", async () => {
    const { name, env } = faultTenant("key", { tools: ["fixture_keyed"] });
    const alpha = await holdGate(`${name}:tool:fixture_keyed:key:alpha`, name);
    // beta has a gate of its own: it runs while alpha's only slot is taken.
    const beta = await callTools(env, ["fixture_keyed", { resource: "beta", ms: 5 }]);
    expect(beta.records[0]).toMatchObject({ status: "succeeded" });

    const running = callTools(
      env,
      ["fixture_keyed", { resource: "alpha", ms: 30 }],
      ["fixture_keyed", { resource: "alpha", ms: 30 }],
    );
    await eventually(async () => (await alpha.snapshot()).queueDepth === 2, "both alpha calls wait at alpha's gate");
    const freed = Date.now();
    await alpha.release("holder");
    expectOneAfterAnother((await running).records, freed);
    await expectNoSlotHeld(env);
  });

  it("(a JSON Pointer in the tenant's policies) any JSON value names the resource", async () => {
    const patch = { tools: ["sleep_pool"], policies: { sleep_pool: { concurrency: { limit: 1, key: "/ms" } } } };
    const { name, env } = faultTenant("keyptr", patch);
    const seven = await holdGate(`${name}:tool:sleep_pool:key:7`, name);
    expect((await callTools(env, ["sleep_pool", { ms: 8 }])).records[0]).toMatchObject({ status: "succeeded" });
    const running = callTools(env, ["sleep_pool", { ms: 7 }]);
    await eventually(async () => (await seven.snapshot()).queueDepth === 1, "the call for 7 waits at its gate");
    const freed = Date.now();
    await seven.release("holder");
    expectOneAfterAnother((await running).records, freed);
  });

  it("(a JSON Pointer in an HTTP declaration) gates an adapter tool per resource", async () => {
    const http = [
      {
        name: "repo_echo",
        description: "Echo a repository name",
        input: {
          type: "object",
          properties: { repo: { type: "string" } },
          required: ["repo"],
          additionalProperties: false,
        },
        url: `${upstreams.httpApi}/echo/{repo}`,
        concurrency: { limit: 1, key: "/repo" },
      },
    ];
    const { name, env } = faultTenant("keyhttp", { http });
    const alpha = await holdGate(`${name}:tool:repo_echo:key:alpha`, name);
    expect((await callTools(env, ["repo_echo", { repo: "beta" }])).records[0]).toMatchObject({ status: "succeeded" });
    const running = callTools(env, ["repo_echo", { repo: "alpha" }]);
    await eventually(async () => (await alpha.snapshot()).queueDepth === 1, "the alpha call waits at alpha's gate");
    await alpha.release("holder");
    const [record] = (await running).records;
    expect(record).toMatchObject({ status: "succeeded", output: { structured: { path: "/echo/alpha" } } });
    expect(
      (await json(await request("/v1/tools", { env }))).tools.find((t: { name: string }) => t.name === "repo_echo")
        .policy.concurrency,
    ).toEqual({
      limit: 1,
      keyed: true,
      key: "/repo",
    });
  });
});

describe("concurrency.maxWaitMs", () => {
  it("a call that waited its longest time answers busy with a retry-after hint and never runs", async () => {
    const patch = { tools: ["sleep"], policies: { sleep: { concurrency: { limit: 1, maxWaitMs: 150 } } } };
    const { name, env } = faultTenant("maxwait", patch);
    const stub = await holdGate(`${name}:tool:sleep`, name);
    const { records } = await callTools(env, ["sleep", { ms: 5 }]);
    expect(records[0]).toMatchObject({
      attempts: 0,
      error: { code: "busy", message: expect.stringContaining("longest time") },
    });
    expect(records[0].error.retryAfterMs).toBeGreaterThan(0);
    expect(records[0].durationMs).toBeGreaterThanOrEqual(150);
    expect(records[0].output).toBeUndefined();
    expect(await stub.snapshot()).toMatchObject({ queueDepth: 0, holders: [{ callId: "holder" }] });
    await stub.release("holder");
  });

  it("ends the wait in the Gate object itself, before the poll would (and persists it across eviction)", async () => {
    const gate = `t1:tool:mw-${uid()}`;
    const limiter = createGateLimiter(tenantGates(bindings, "t1"));
    const req = { gate, rules: { limit: 1, maxQueue: 8 }, tool: "t", leaseMs: 60_000, tenant: "t1" };
    const held = await limiter.acquire({ ...req, callId: "a" });
    expect(held.ok).toBe(true);
    const busy = await limiter.acquire({ ...req, callId: "b", rules: { ...req.rules, maxWaitMs: 100 } });
    expect(busy).toMatchObject({ ok: false, code: "busy" });
    expect(!busy.ok && busy.retryAfterMs).toBeGreaterThan(0);

    // A waiter whose Worker is away between polls: its end of wait is in SQLite, so an evicted gate still drops it.
    const stub = gateStub(gate);
    const askedAt = Date.now();
    // Long enough that the first acquire lands well inside the wait on a loaded machine.
    const until = askedAt + 1_500;
    const waits = { ...req, rules: { ...req.rules, maxWaitMs: 1_500 }, askedAt };
    expect(await stub.acquire({ ...waits, callId: "c", pollMs: 1 })).toMatchObject({ code: "queued" });
    await evictDurableObject(stub as unknown as DurableObjectStub);
    const fresh = gateStub(gate);
    expect((await fresh.snapshot()).queueDepth).toBe(1);
    await waitPast(until);
    await runDurableObjectAlarm(fresh as unknown as DurableObjectStub);
    expect((await fresh.snapshot()).queueDepth).toBe(0);
    // Coming back after that (a late poll) it is not queued again.
    expect(await fresh.acquire({ ...waits, callId: "c", pollMs: 1 })).toMatchObject({
      code: "busy",
      message: expect.stringContaining("longest time"),
    });
  });
});
