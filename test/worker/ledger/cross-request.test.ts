import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { Ledger } from "../../../worker/ledger/ledger";
import { tenantLedger } from "../../../worker/ledger/address";
import { currentOf, shardOf } from "../../../worker/ledger/shard-map";
import type { LedgerWrite } from "../../../worker/ledger/types";
import { eventually } from "../../wait";
import { json, request } from "../helpers/requests";

/**
 * The isolate's write groups (worker/ledger/writes.ts) are shared by its requests: one request sends a
 * group holding others' writes, and wakes a waiting one to send the next. Through real requests
 * (exports.default.fetch, each its own I/O context), every writer gets its answer in its own request:
 * workerd runs the continuations of a promise that another request settled in the request that made it.
 * (Code a test runs itself is in vitest's runner Durable Object, which cannot share them: docs/testing.md.)
 */

const uid = () => crypto.randomUUID().slice(0, 8);
const addCall = (id: string) => ({
  role: "assistant",
  content: null,
  tool_calls: [{ id, type: "function", function: { name: "add", arguments: '{"a":1,"b":2}' } }],
});
const runAdd = async (id: string) => (await json(await request("/v1/calls/openai", { body: addCall(id) }))).calls[0];
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("ledger write groups across requests", () => {
  it("answers every request whose write travelled in a group another request sent", async () => {
    const run = uid();
    const warm = await runAdd(`warm-${run}`);
    const { shards } = currentOf(await tenantLedger(env, warm.tenant).map());
    // Three ids on one shard: their writes queue for one group.
    const ids: string[] = [];
    for (let n = 0; ids.length < 3; n++) {
      const id = `g${n}-${run}`;
      if (shardOf(id, shards) === shardOf(ids[0] ?? id, shards)) ids.push(id);
    }
    const groups: string[][] = [];
    // The first group stays on its way until the others queue behind it. Plain data, read on the
    // object's own timers: a promise of the test's context cannot be settled from the object's.
    let hold = true;
    const writeMany = Ledger.prototype.writeMany;
    Ledger.prototype.writeMany = async function (this: Ledger, writes: LedgerWrite[]) {
      const mine = writes.map((w) => (w.op === "commit" ? w.input.record.callId : "")).filter((id) => ids.includes(id));
      if (mine.length > 0) groups.push(mine);
      while (hold && mine.length > 0 && groups.length === 1) await pause(2);
      return writeMany.call(this, writes);
    } as unknown as typeof writeMany;
    try {
      const first = runAdd(ids[0]!);
      await eventually(() => groups.length === 1, "the first write is on its way");
      const others = ids.slice(1).map(runAdd);
      // Both wait behind the first group (nothing else reached the shard); let it arrive.
      await pause(50);
      expect(groups).toHaveLength(1);
      hold = false;
      const records = await Promise.all([first, ...others]);
      expect(records.map((r) => [r.callId, r.status])).toEqual(ids.map((id) => [id, "succeeded"]));
      // The others travel together, in the order their requests queued them (either).
      expect(groups.map((group) => [...group].sort())).toEqual([[ids[0]], ids.slice(1).sort()]);
    } finally {
      Ledger.prototype.writeMany = writeMany;
    }
  });
});
