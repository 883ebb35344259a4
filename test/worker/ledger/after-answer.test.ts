import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import * as v from "valibot";
import { executeCall } from "../../../src/pipeline/execute";
import { createRegistry } from "../../../src/registry";
import { resultText } from "../../../src/result";
import { defineTool } from "../../../src/tool";
import { shardOf, tenantLedger, type LedgerAddress, type LedgerStub } from "../../../worker/ledger/address";
import { createLedgerJournal, type LedgerJournalOptions } from "../../../worker/ledger/journal";
import type { LedgerWrite } from "../../../worker/ledger/types";
import { eventually, latch } from "../../wait";
import { SHARDS, shardOfCall, uid } from "../helpers/ledger";

/**
 * readOnlyRecords "after-answer" (worker/ledger/after-answer.ts): a short read-only call answers
 * without waiting for the ledger; its record follows, grouped with the isolate's other records of the
 * next recordDelayMs. Each journal here stands for one request of the same isolate. The ledger is
 * the real Ledger object; the address only counts the groups it carries (and can hold them back).
 */
function watchedLedger(tenant: string, hold?: Promise<void>) {
  const real = tenantLedger({ LEDGER: env.LEDGER, LEDGER_SHARDS: SHARDS }, tenant);
  const groups: LedgerWrite["op"][][] = [];
  const wrap = (stub: LedgerStub): LedgerStub =>
    new Proxy(stub, {
      get(target, prop) {
        if (prop !== "writeMany") return Reflect.get(target, prop) as unknown;
        return async (writes: LedgerWrite[]) => {
          groups.push(writes.map((write) => write.op));
          await hold;
          return target.writeMany(writes);
        };
      },
    });
  const ledger: LedgerAddress = {
    ...real,
    for: (callId) => wrap(real.for(callId)),
    shard: (n) => wrap(real.shard(n)),
    place: async (callId) => {
      const place = await real.place(callId);
      return { ...place, stub: () => wrap(place.stub()) };
    },
  };
  return { ledger, groups };
}

function lookupTool() {
  const state = { runs: 0 };
  const tool = defineTool({
    name: "lookup",
    description: "A read-only lookup",
    input: v.object({ q: v.string() }),
    policy: { readOnly: true },
    run: ({ q }) => `${q} (run ${++state.runs})`,
  });
  return { registry: createRegistry([tool]), state };
}

/** One request of the isolate: its own journal and waitUntil, whose promises the test can await. */
function request(tenant: string, ledger: LedgerAddress, more: Partial<LedgerJournalOptions> = {}) {
  const kept: Promise<unknown>[] = [];
  const journal = createLedgerJournal({
    ledger,
    readOnlyRecords: "after-answer",
    waitUntil: (p) => kept.push(p),
    ...more,
  });
  return { journal, tenant, done: () => Promise.all(kept) };
}

const call = (id: string, q: string) => ({ id, name: "lookup", arguments: JSON.stringify({ q }) });

describe("read-only records after the answer", () => {
  it("answers before its record is stored; the record follows with its events", async () => {
    const tenant = `t-${uid()}`;
    const arrive = latch();
    const { ledger, groups } = watchedLedger(tenant, arrive.opened);
    const { registry } = lookupTool();
    const req = request(tenant, ledger, { recordDelayMs: 0 });
    const result = await executeCall(call("a1", "weather"), { registry, tenant, journal: req.journal });
    expect(result.ok && resultText(result)).toBe("weather (run 1)");
    // The answer is here while its one write is still held on its way: nothing is stored yet.
    await eventually(() => groups.length === 1, "the record has left");
    expect(groups).toEqual([["commit"]]);
    const shard = shardOfCall(tenant, "a1");
    expect(await shard.get("a1", null)).toBeNull();

    arrive.open();
    await req.done();
    expect((await shard.get("a1", null))?.record).toMatchObject({
      callId: "a1",
      status: "succeeded",
      args: { q: "weather" },
    });
    const { events } = await shard.events(0, 0, null);
    expect(
      events.filter((event) => (event.data as { callId?: string }).callId === "a1").map((event) => event.type),
    ).toEqual(["call.started", "call.finished"]);
  });

  it("groups the records of the isolate's requests answered within recordDelayMs into one round trip", async () => {
    const tenant = `t-${uid()}`;
    const { ledger, groups } = watchedLedger(tenant);
    const { registry } = lookupTool();
    // Ids on one shard, answered one request after another: each answer comes before the group leaves.
    const ids = Array.from({ length: 40 }, (_, i) => `b${i}`)
      .filter((id) => shardOf(id, SHARDS) === 0)
      .slice(0, 5);
    const requests = ids.map(() => request(tenant, ledger, { recordDelayMs: 1_000 }));
    for (const [i, id] of ids.entries()) {
      const result = await executeCall(call(id, `q${i}`), { registry, tenant, journal: requests[i]!.journal });
      expect(result.ok).toBe(true);
    }
    expect(groups).toEqual([]);
    await Promise.all(requests.map((req) => req.done()));
    expect(groups).toEqual([ids.map(() => "commit")]);
    for (const id of ids) expect((await shardOfCall(tenant, id).get(id, null))?.record.status).toBe("succeeded");
  });

  it("while a record is on its way, the same id in this isolate answers as the ledger would: replay, conflict, taken", async () => {
    const tenant = `t-${uid()}`;
    const arrive = latch();
    const { ledger } = watchedLedger(tenant, arrive.opened);
    const { registry, state } = lookupTool();
    const first = request(tenant, ledger, { key: "k1" });
    const answered = await executeCall(call("c1", "x"), { registry, tenant, journal: first.journal });

    const again = await executeCall(call("c1", "x"), {
      registry,
      tenant,
      journal: request(tenant, ledger, { key: "k1" }).journal,
    });
    expect(again.record.replay).toBe(true);
    expect(again.ok && resultText(again)).toBe(answered.ok ? resultText(answered) : "");
    const other = await executeCall(call("c1", "y"), {
      registry,
      tenant,
      journal: request(tenant, ledger, { key: "k1" }).journal,
    });
    expect(!other.ok && other.error.code).toBe("conflict");
    expect(!other.ok && other.error.message).toContain("already used");
    const otherKey = await executeCall(call("c1", "x"), {
      registry,
      tenant,
      journal: request(tenant, ledger, { key: "k2" }).journal,
    });
    expect(!otherKey.ok && otherKey.error.message).toContain("already taken");
    expect(state.runs).toBe(1);

    arrive.open();
    await first.done();
    expect((await shardOfCall(tenant, "c1").get("c1", null))?.record.args).toEqual({ q: "x" });
  });

  it("once stored, the same id runs again (read-only: harmless) and the ledger keeps the first record", async () => {
    const tenant = `t-${uid()}`;
    const { ledger } = watchedLedger(tenant);
    const { registry, state } = lookupTool();
    const first = request(tenant, ledger);
    await executeCall(call("d1", "x"), { registry, tenant, journal: first.journal });
    await first.done();

    const second = request(tenant, ledger);
    const again = await executeCall(call("d1", "x"), { registry, tenant, journal: second.journal });
    await second.done();
    expect(state.runs).toBe(2);
    expect(again.record.replay).toBeUndefined();
    expect(again.ok && resultText(again)).toBe("x (run 2)");
    const stored = await shardOfCall(tenant, "d1").get("d1", null);
    expect(stored?.record.output?.content[0]).toEqual({ type: "text", text: "x (run 1)" });
  });

  it("before-answer (the default) still waits for the record and replays a stored id", async () => {
    const tenant = `t-${uid()}`;
    const { ledger, groups } = watchedLedger(tenant);
    const { registry, state } = lookupTool();
    const journal = createLedgerJournal({ ledger });
    await executeCall(call("e1", "x"), { registry, tenant, journal });
    expect(groups).toEqual([["commit"]]);
    const again = await executeCall(call("e1", "x"), { registry, tenant, journal: createLedgerJournal({ ledger }) });
    expect(again.record.replay).toBe(true);
    expect(state.runs).toBe(2);
  });
});
