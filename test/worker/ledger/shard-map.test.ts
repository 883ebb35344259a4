import { runDurableObjectAlarm } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { executeCall } from "../../../src/pipeline/execute";
import { createRegistry } from "../../../src/registry";
import { shardOf, tenantLedger, type LedgerNamespace } from "../../../worker/ledger/address";
import { createMapCache, type MapCache } from "../../../worker/ledger/map-cache";
import { createLedgerJournal } from "../../../worker/ledger/journal";
import { countingTool, tune, uid } from "../helpers/ledger";

/**
 * Changing a live tenant's shard count (worker/ledger/shard-map.ts, map-holder.ts): every ledger
 * here is the real Ledger objects. Each MapCache stands for one isolate's copy of the map, so an
 * isolate that has not learned a change is a journal over a cache loaded before it.
 */

const FIRST_SHARDS = 2;
const bindings = { LEDGER: env.LEDGER, LEDGER_SHARDS: FIRST_SHARDS };
const addressIn = (tenant: string, cache: MapCache, ns: LedgerNamespace = env.LEDGER) =>
  tenantLedger({ ...bindings, LEDGER: ns }, tenant, cache);
const journalIn = (tenant: string, cache: MapCache, ns?: LedgerNamespace) =>
  createLedgerJournal({ ledger: addressIn(tenant, cache, ns) });
const call = (id: string, text: string, name = "echo") => ({ id, name, arguments: JSON.stringify({ text }) });

/** `count` ids whose shard under `from` shards differs from the one under `to`: each would be lost by a plain remap. */
function movingIds(prefix: string, count: number, from: number, to: number): string[] {
  const ids: string[] = [];
  for (let i = 0; ids.length < count; i++)
    if (shardOf(`${prefix}${i}`, from) !== shardOf(`${prefix}${i}`, to)) ids.push(`${prefix}${i}`);
  return ids;
}

/**
 * Changes the tenant's shard count through its map object; the cache given learns it at
 * once, as the admin route's isolate does.
 */
async function changeShards(tenant: string, shards: number, cache: MapCache) {
  const address = addressIn(tenant, cache);
  const outcome = await address.holder().changeShards(tenant, shards, FIRST_SHARDS);
  if (!outcome.ok) throw new Error(outcome.error);
  address.adopt(outcome.map);
  return outcome.map;
}

/** Which shards (of the first `span`) hold a row for the id. */
async function holders(tenant: string, id: string, span = 8): Promise<number[]> {
  const address = addressIn(tenant, createMapCache());
  const held = await Promise.all(Array.from({ length: span }, (_, n) => address.shard(n).holds(id)));
  return held.flatMap((yes, n) => (yes ? [n] : []));
}

describe("changing a live tenant's shard count", () => {
  it("after 2 → 5, calls recorded under 2 shards replay from their old shard, other arguments conflict, new ids go to their new home", async () => {
    const tenant = `t-${uid()}`;
    const cache = createMapCache();
    const { tool, state } = countingTool();
    const lookup = countingTool("lookup", { readOnly: true });
    const registry = createRegistry([tool, lookup.tool]);
    const run = (id: string, text: string, name = "echo") =>
      executeCall(call(id, text, name), { registry, tenant, journal: journalIn(tenant, cache) });

    const old = movingIds("old-", 6, 2, 5);
    const oldReads = movingIds("read-", 3, 2, 5);
    for (const id of old) expect((await run(id, id)).ok).toBe(true);
    for (const id of oldReads) expect((await run(id, id, "lookup")).ok).toBe(true);
    const map = await changeShards(tenant, 5, cache);
    expect(map.versions.map((v) => [v.version, v.shards])).toEqual([
      [2, 5],
      [1, 2],
    ]);

    for (const id of old) {
      const again = await run(id, id);
      expect(again.ok && again.record.replay, id).toBe(true);
      expect(again.ok && again.output.content).toEqual([{ type: "text", text: `echo ${id}` }]);
      const other = await run(id, "other arguments");
      expect(!other.ok && other.error.code).toBe("conflict");
      expect(await holders(tenant, id)).toEqual([shardOf(id, 2)]);
    }
    // A read-only call is not claimed before it runs; its deferred commit meets the old record and answers it.
    for (const id of oldReads) expect((await run(id, id, "lookup")).record.replay).toBe(true);
    expect(state.runs).toBe(old.length);

    const fresh = movingIds("new-", 6, 2, 5);
    for (const id of fresh) expect((await run(id, id)).ok).toBe(true);
    for (const id of fresh) expect(await holders(tenant, id)).toEqual([shardOf(id, 5)]);
  });

  it("an isolate that has not learned the change is refused by its sealed old shard, learns the new map and claims on the new home", async () => {
    const tenant = `t-${uid()}`;
    const stale = createMapCache();
    const { tool, state } = countingTool();
    const registry = createRegistry([tool]);
    expect((await addressIn(tenant, stale).map()).versions[0]!.shards).toBe(2);
    await changeShards(tenant, 5, createMapCache());

    const [x, y] = movingIds("s-", 2, 2, 5);
    const done = await executeCall(call(x!, "x"), { registry, tenant, journal: journalIn(tenant, stale) });
    expect(done.ok && done.record.replay).toBeUndefined();
    // Not on the shard its stale map named: that shard is sealed for version 1.
    expect(await holders(tenant, x!)).toEqual([shardOf(x!, 5)]);
    expect((await addressIn(tenant, stale).map()).versions[0]).toMatchObject({ version: 2, shards: 5 });

    // A duplicate from another stale isolate of an id first claimed under the new map: refused
    // on the old shard, then replayed.
    await executeCall(call(y!, "y"), { registry, tenant, journal: journalIn(tenant, createMapCache()) });
    const otherStale = createMapCache();
    const firstMap = { versions: [{ version: 1, shards: 2, since: 0, eventStart: {} }], origin: 2, revision: 1 };
    addressIn(tenant, otherStale).adopt(firstMap);
    const duplicate = await executeCall(call(y!, "y"), { registry, tenant, journal: journalIn(tenant, otherStale) });
    expect(duplicate.ok && duplicate.record.replay).toBe(true);
    expect(state.runs).toBe(2);
    expect(await holders(tenant, y!)).toEqual([shardOf(y!, 5)]);
  });

  it("concurrent duplicates racing the change, from isolates with the old map and the new one, run the tool once per id", async () => {
    const tenant = `t-${uid()}`;
    const { tool, state } = countingTool();
    const registry = createRegistry([tool]);
    const ids = movingIds("r-", 8, 2, 5);
    // Claimed first at the moment of publication, by an isolate with each map.
    const atPublication = movingIds("p-", 8, 2, 5);
    const staleCaches = [createMapCache(), createMapCache()];
    for (const cache of staleCaches) await addressIn(tenant, cache).map();
    // Per id, an isolate that still has the old map when the new one is published.
    const lateStale = atPublication.map(() => createMapCache());
    for (const cache of lateStale) await addressIn(tenant, cache).map();
    const changer = createMapCache();

    const change = changeShards(tenant, 5, changer);
    const runs = ids.flatMap((id) => [
      ...staleCaches.map((cache) => executeCall(call(id, id), { registry, tenant, journal: journalIn(tenant, cache) })),
      // One that fetches the map during the race (old or new, whichever the holder answers).
      executeCall(call(id, id), { registry, tenant, journal: journalIn(tenant, createMapCache()) }),
      change.then(() => executeCall(call(id, id), { registry, tenant, journal: journalIn(tenant, changer) })),
    ]);
    runs.push(
      ...atPublication.flatMap((id, i) => [
        change.then(() => executeCall(call(id, id), { registry, tenant, journal: journalIn(tenant, changer) })),
        change.then(() => executeCall(call(id, id), { registry, tenant, journal: journalIn(tenant, lateStale[i]!) })),
      ]),
    );
    const results = await Promise.all(runs);
    await change;

    expect(state.runs).toBe(ids.length + atPublication.length);
    for (const result of results)
      expect(result.ok && result.output.content).toEqual([{ type: "text", text: `echo ${result.record.callId}` }]);
    for (const id of [...ids, ...atPublication]) expect((await holders(tenant, id)).length, id).toBe(1);
  });

  it("changing twice (2 → 5 → 3): every version's calls are found; old versions drop only once their records are gone", async () => {
    const tenant = `t-${uid()}`;
    const cache = createMapCache();
    const { tool, state } = countingTool();
    const registry = createRegistry([tool]);
    const run = (id: string) => executeCall(call(id, id), { registry, tenant, journal: journalIn(tenant, cache) });

    const first = movingIds("a-", 4, 2, 3);
    for (const id of first) await run(id);
    await changeShards(tenant, 5, cache);
    const second = movingIds("b-", 4, 5, 3);
    for (const id of second) await run(id);
    const map = await changeShards(tenant, 3, cache);
    expect(map.versions.map((v) => v.shards)).toEqual([3, 5, 2]);
    const third = movingIds("c-", 4, 3, 5);
    for (const id of third) await run(id);

    const all = [...first, ...second, ...third];
    for (const id of all) expect((await run(id)).record.replay, id).toBe(true);
    expect(state.runs).toBe(all.length);
    // Listed once each across the widest version's shards.
    const address = addressIn(tenant, cache);
    const listed = (
      await Promise.all((await address.all()).map((shard) => shard().list({ viewer: null, limit: 100 })))
    ).flat();
    expect(listed.map((entry) => entry.record.callId).sort()).toEqual([...all].sort());

    // Version 1's records that neither 5 nor 3 places keep it.
    const stranded = first.filter((id) => ![5, 3].some((shards) => shardOf(id, shards) === shardOf(id, 2)));
    expect(stranded.length).toBeGreaterThan(0);
    const blocked = await address.holder().dropShardVersions(tenant, FIRST_SHARDS);
    expect(blocked.dropped).toEqual([]);
    expect(blocked.blocked).toEqual({ version: 1, stranded: stranded.length });

    // Retention prunes every finished record; then both older versions go.
    for (let n = 0; n < 5; n++) {
      const raw = address.shard(n) as unknown as DurableObjectStub;
      await tune(raw, { retentionMs: 1 });
      await runDurableObjectAlarm(raw);
    }
    const dropped = await address.holder().dropShardVersions(tenant, FIRST_SHARDS);
    expect(dropped.dropped).toEqual([1, 2]);
    expect(dropped.map.versions.map((v) => v.shards)).toEqual([3]);
  });

  it("costs one extra read per id placed while an older version is live, none once it is dropped", async () => {
    const tenant = `t-${uid()}`;
    const reads = { holds: 0 };
    const counting = {
      idFromName: (name: string) => env.LEDGER.idFromName(name),
      get: (id: DurableObjectId) =>
        new Proxy(env.LEDGER.get(id), {
          get(target, prop) {
            if (prop === "holds") reads.holds++;
            return Reflect.get(target, prop) as unknown;
          },
        }),
    } as unknown as LedgerNamespace;
    const cache = createMapCache();
    const { tool } = countingTool();
    const registry = createRegistry([tool]);
    const run = (id: string) =>
      executeCall(call(id, id), { registry, tenant, journal: journalIn(tenant, cache, counting) });

    await run("before");
    expect(reads.holds).toBe(0);
    await changeShards(tenant, 5, cache);
    const live = movingIds("live-", 5, 2, 5);
    for (const id of live) expect((await run(id)).ok).toBe(true);
    // One read each, at the claim; the record's completion found the place remembered.
    expect(reads.holds).toBe(live.length);

    // "before" is version 1's only record, and version 5 does not place it: delete it as retention would, then drop.
    const address = addressIn(tenant, cache);
    const raw = address.shard(shardOf("before", 2)) as unknown as DurableObjectStub;
    await tune(raw, { retentionMs: 1 });
    await runDurableObjectAlarm(raw);
    const dropped = await address.holder().dropShardVersions(tenant, FIRST_SHARDS);
    expect(dropped.dropped).toEqual([1]);
    address.adopt(dropped.map);

    for (const id of movingIds("dropped-", 5, 2, 5)) expect((await run(id)).ok).toBe(true);
    expect(reads.holds).toBe(live.length);
  });
});
