import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Gate } from "../../../worker/gates/gate";
import { tenantGates } from "../../../worker/gates/address";
import { createGateLimiter } from "../../../worker/gates/limiter";

/**
 * Idle gates forget themselves (worker/durable/gate.ts forget()): gates keyed per resource would
 * otherwise pile up in the tenant's index (GET /v1/gates) forever.
 */
const uid = () => crypto.randomUUID().slice(0, 8);
const gateStub = (gate: string) => env.GATES.get(env.GATES.idFromName(gate));
const indexOf = (tenant: string) => env.GATE_INDEX.get(env.GATE_INDEX.idFromName(tenant));
const listed = async (tenant: string) => (await indexOf(tenant).list("", 100)).gates;

async function hold(tenant: string, gate: string, callId: string) {
  const limiter = createGateLimiter(tenantGates(env, tenant));
  const grant = await limiter.acquire({ gate, callId, tool: "t", rules: { limit: 1, maxQueue: 4 }, leaseMs: 60_000 });
  if (!grant.ok) throw new Error(`not granted: ${grant.code}`);
  return grant;
}

/** Makes the gate's idle time already over, then runs its alarm. */
async function idleAndAlarm(gate: string): Promise<void> {
  await runInDurableObject(gateStub(gate) as unknown as DurableObjectStub, (instance: DurableObject) => {
    (instance as unknown as Gate).forgetAfterMs = 0;
  });
  await runDurableObjectAlarm(gateStub(gate) as unknown as DurableObjectStub);
}

describe("idle gates", () => {
  it("an empty gate idle long enough leaves the index and its rows; the next acquire starts it afresh", async () => {
    const tenant = `fg-${uid()}`;
    const gate = `${tenant}:key:account-1`;
    await (await hold(tenant, gate, "c1")).release();
    await expect.poll(() => listed(tenant)).toEqual([gate]);

    await idleAndAlarm(gate);
    await expect.poll(() => listed(tenant)).toEqual([]);
    const rows = await runInDurableObject(
      gateStub(gate) as unknown as DurableObjectStub,
      (_: DurableObject, state: DurableObjectState) =>
        state.storage.sql
          .exec<{ n: number }>("SELECT (SELECT COUNT(*) FROM slots) + (SELECT COUNT(*) FROM meta) AS n")
          .one().n,
    );
    expect(rows).toBe(0);

    // Used again: registered again, and its limit holds as before.
    const first = await hold(tenant, gate, "c2");
    await expect.poll(() => listed(tenant)).toEqual([gate]);
    const limiter = createGateLimiter(tenantGates(env, tenant));
    const second = await limiter.acquire({
      gate,
      callId: "c3",
      tool: "t",
      rules: { limit: 1, maxQueue: 0 },
      leaseMs: 60_000,
    });
    expect(second).toMatchObject({ ok: false, code: "busy" });
    await first.release();
  });

  it("never forgets a gate that holds a slot or a place", async () => {
    const tenant = `fg-${uid()}`;
    const gate = `${tenant}:tool:busy`;
    const grant = await hold(tenant, gate, "h1");
    await expect.poll(() => listed(tenant)).toEqual([gate]);
    await idleAndAlarm(gate);
    expect(await listed(tenant)).toEqual([gate]);
    expect((await gateStub(gate).snapshot()).holders.map((h) => h.callId)).toEqual(["h1"]);
    await grant.release();
  });

  it("the index keeps a gate that registered again after it went idle, whatever order the two arrive in", async () => {
    const tenant = `fg-${uid()}`;
    const index = indexOf(tenant);
    await index.register("g", 1_000);
    await index.register("g", 5_000); // used again later
    await index.unregister("g", 4_000); // the removal of the earlier idle period arrives late
    expect(await listed(tenant)).toEqual(["g"]);
    await index.unregister("g", 6_000);
    expect(await listed(tenant)).toEqual([]);
  });
});
