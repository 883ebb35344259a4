import { evictDurableObject, runDurableObjectAlarm } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ledgerShard } from "../../worker/ledger-shards";
import { journal, rawShard, rawShardOfCall, record, shardOfCall, tune, uid } from "./ledger-helpers";

describe("large results", () => {
  it("stores a result bigger than a row in chunks, pages it, and replays it whole", async () => {
    const tenant = `t-${uid()}`;
    // Offset by one so a surrogate pair straddles the 500 000-unit chunk boundary.
    const text = "a" + "😀".repeat(600_000);
    const begin = { callId: "huge", tool: "echo", argsHash: "h", status: "running" as const, record: record(tenant, "huge", "running") };
    const j = journal(tenant);
    await j.begin(begin);
    await j.finish(record(tenant, "huge", "succeeded", { output: { content: [{ type: "text", text }], structured: { n: 1 } } }));

    const ledger = shardOfCall(tenant, "huge");
    const entry = await ledger.get("huge");
    expect(entry).toMatchObject({ truncated: true, resultChars: text.length });
    expect(entry?.record.output?.truncated).toBe(true);
    const across = await ledger.result("huge", 499_990, 20);
    expect(across).toMatchObject({ offset: 499_990, total: text.length, nextOffset: 500_010 });
    // Compared as booleans: a failing diff of lone surrogates cannot cross the test runner's socket.
    expect(typeof across === "object" && across.text === text.slice(499_990, 500_010)).toBe(true);

    const replay = await journal(tenant).begin(begin);
    expect(replay.kind).toBe("replay");
    const output = replay.kind === "replay" ? replay.record.output : undefined;
    expect(output?.structured).toEqual({ n: 1 });
    expect(output?.content[0]?.type === "text" && output.content[0].text === text).toBe(true);
  });

  it("cuts oversized arguments in the stored record", async () => {
    const tenant = `t-${uid()}`;
    await journal(tenant).finish(record(tenant, "args", "rejected", { args: { blob: "z".repeat(200_000) } }));
    const entry = await shardOfCall(tenant, "args").get("args");
    expect(entry?.truncated).toBe(true);
    expect(String(entry?.record.args)).toContain("arguments truncated");
  });
});

describe("retention", () => {
  it("prunes finished records past the count limit, oldest first, with their chunks", async () => {
    const tenant = `t-${uid()}`;
    const shard = ledgerShard(env.LEDGER, tenant, 0);
    await tune(rawShard(tenant, 0), { retentionCount: 3 });
    const base = Date.now() - 10_000;
    for (let i = 0; i < 5; i++) {
      const output = i === 0 ? { content: [{ type: "text" as const, text: "q".repeat(100_000) }] } : undefined;
      await shard.record(record(tenant, `r${i}`, "failed", { startedAt: base + i, ...(output ? { output } : {}) }));
    }
    expect(await shard.result("r0", 0, 10)).not.toBe("not_found");
    expect(await runDurableObjectAlarm(rawShard(tenant, 0))).toBe(true);
    const left = await shard.list({ limit: 10 });
    expect(left.map((entry) => entry.record.callId)).toEqual(["r4", "r3", "r2"]);
    expect(await shard.result("r0", 0, 10)).toBe("not_found");
  });

  it("prunes by age but never a call still running", async () => {
    const tenant = `t-${uid()}`;
    const old = Date.now() - 5_000;
    const j = journal(tenant, { watchDelayMs: 60_000 });
    await j.begin({ callId: "live", tool: "echo", argsHash: "h", status: "running", record: record(tenant, "live", "running", { startedAt: old }) });
    await j.finish(record(tenant, "gone", "failed", { startedAt: old }));
    for (const id of ["live", "gone"]) await tune(rawShardOfCall(tenant, id), { retentionMs: 1_000 });
    for (const id of ["live", "gone"]) await runDurableObjectAlarm(rawShardOfCall(tenant, id));
    expect(await shardOfCall(tenant, "gone").get("gone")).toBeNull();
    expect((await shardOfCall(tenant, "live").get("live"))?.record.status).toBe("running");
  });
});

describe("eviction", () => {
  it("keeps a parked call's arguments and the event ids across eviction", async () => {
    const tenant = `t-${uid()}`;
    const args = { to: "dan", text: "secret plan" };
    await journal(tenant).begin({ callId: "park", tool: "send_message", argsHash: "h", status: "pending", args, record: record(tenant, "park", "pending", { tool: "send_message", args: { to: "dan", text: "***" } }) });
    const ledger = shardOfCall(tenant, "park");
    const before = await ledger.events(0, 0);
    await evictDurableObject(rawShardOfCall(tenant, "park"));

    const decided = await ledger.decide("park", "approve", undefined, 60_000);
    expect(decided.ok && decided.decision === "approve" && decided.approved.call).toEqual({ id: "park", name: "send_message", arguments: args });
    const after = await ledger.events(before.last, 0);
    expect(after.events.map((e) => e.type)).toEqual(["approval.decided"]);
    expect(after.events[0]!.id).toBeGreaterThan(before.last);
    // The masked form is what the record and events show; the raw arguments are gone once decided.
    expect(JSON.stringify(after.events)).not.toContain("secret plan");
  });
});
