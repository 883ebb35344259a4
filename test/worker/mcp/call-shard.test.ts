import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { currentOf, shardOf } from "../../../worker/ledger/shard-map";
import { tenantLedger } from "../../../worker/ledger/address";
import { modernPost } from "../helpers/mcp";
import { json, request } from "../helpers/requests";

/** The ids of the demo's `add` records the call key can list (the newest 200). */
async function addRecordIds(): Promise<Set<string>> {
  const listed = await json<{ calls: { record: { callId: string } }[] }>(await request("/v1/calls?tool=add&limit=200"));
  return new Set(listed.calls.map((entry) => entry.record.callId));
}

const call = async (a: number) => {
  const res = await modernPost("tools/call", { name: "add", arguments: { a, b: 1 } });
  expect(res.status).toBe(200);
};

describe("2026-07-28 call ids and the ledger's shards", () => {
  it("places the calls one isolate makes up on one shard of the tenant's several", async () => {
    await call(0); // the isolate learns the tenant's shard map
    const shards = currentOf(await tenantLedger(env, "demo").map()).shards;
    expect(shards).toBeGreaterThan(1);
    const before = await addRecordIds();
    for (let a = 1; a <= 12; a++) await call(a);
    const made = [...(await addRecordIds())].filter((id) => !before.has(id));
    expect(made).toHaveLength(12);
    expect(made.every((id) => id.startsWith("mcp-"))).toBe(true);
    // Random ids would all share one shard once in 4^11 runs.
    expect(new Set(made.map((id) => shardOf(id, shards))).size).toBe(1);
  });
});
