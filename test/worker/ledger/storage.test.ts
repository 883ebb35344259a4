import { evictDurableObject, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Ledger } from "../../../worker/ledger/ledger";
import { migrate } from "../../../worker/ledger/schema";
import { tenantLedger } from "../../../worker/ledger/address";
import { claim, journal, rawShard, rawShardOfCall, record, shardOfCall, tune, uid } from "../helpers/ledger";

describe("large results", () => {
  it("stores a result bigger than a row in chunks, pages it, and replays it whole", async () => {
    const tenant = `t-${uid()}`;
    // Offset by one so a surrogate pair straddles the 500 000-unit chunk boundary.
    const text = `a${"😀".repeat(600_000)}`;
    const begin = claim(tenant, "huge");
    const j = journal(tenant);
    await j.begin(begin);
    await j.finish(
      record(tenant, "huge", "succeeded", { output: { content: [{ type: "text", text }], structured: { n: 1 } } }),
    );

    const ledger = shardOfCall(tenant, "huge");
    const entry = await ledger.get("huge", null);
    expect(entry).toMatchObject({ truncated: true, resultChars: text.length });
    expect(entry?.record.output?.truncated).toBe(true);
    const across = await ledger.result("huge", null, 499_990, 20);
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
    const entry = await shardOfCall(tenant, "args").get("args", null);
    expect(entry?.truncated).toBe(true);
    expect(String(entry?.record.args)).toContain("arguments truncated");
  });
});

describe("retention", () => {
  it("prunes finished records past the count limit, oldest first, with their chunks", async () => {
    const tenant = `t-${uid()}`;
    const shard = tenantLedger(env, tenant).shard(0);
    await tune(rawShard(tenant, 0), { retentionCount: 3 });
    const base = Date.now() - 10_000;
    for (let i = 0; i < 5; i++) {
      const output = i === 0 ? { content: [{ type: "text" as const, text: "q".repeat(100_000) }] } : undefined;
      await shard.record(
        record(tenant, `r${i}`, "failed", { startedAt: base + i, ...(output ? { output } : {}) }),
        null,
      );
    }
    expect(await shard.result("r0", null, 0, 10)).not.toBe("not_found");
    expect(await runDurableObjectAlarm(rawShard(tenant, 0))).toBe(true);
    const left = await shard.list({ limit: 10, viewer: null });
    expect(left.map((entry) => entry.record.callId)).toEqual(["r4", "r3", "r2"]);
    expect(await shard.result("r0", null, 0, 10)).toBe("not_found");
    const chunks = await runInDurableObject(
      rawShard(tenant, 0),
      (_, state) =>
        state.storage.sql.exec<{ n: number }>("SELECT count(*) AS n FROM blobs WHERE call_id = 'r0'").one().n,
    );
    expect(chunks).toBe(0);
  });

  it("prunes by age but never a call still running", async () => {
    const tenant = `t-${uid()}`;
    const old = Date.now() - 5_000;
    const j = journal(tenant, { watchDelayMs: 60_000 });
    await j.begin(claim(tenant, "live", { record: { startedAt: old } }));
    await j.finish(record(tenant, "gone", "failed", { startedAt: old }));
    for (const id of ["live", "gone"]) await tune(rawShardOfCall(tenant, id), { retentionMs: 1_000 });
    for (const id of ["live", "gone"]) await runDurableObjectAlarm(rawShardOfCall(tenant, id));
    expect(await shardOfCall(tenant, "gone").get("gone", null)).toBeNull();
    expect((await shardOfCall(tenant, "live").get("live", null))?.record.status).toBe("running");
  });
});

describe("eviction", () => {
  it("keeps a parked call's arguments and the event ids across eviction", async () => {
    const tenant = `t-${uid()}`;
    const args = { to: "dan", text: "secret plan" };
    await journal(tenant).begin(
      claim(tenant, "park", {
        tool: "send_message",
        status: "pending",
        args,
        record: { args: { to: "dan", text: "***" } },
      }),
    );
    const ledger = shardOfCall(tenant, "park");
    const before = await ledger.events(0, 0, null);
    await evictDurableObject(rawShardOfCall(tenant, "park"));

    const decided = await ledger.decide("park", "approve", undefined, 60_000);
    expect(decided.ok && decided.decision === "approve" && decided.approved.call).toEqual({
      id: "park",
      name: "send_message",
      arguments: args,
    });
    const after = await ledger.events(before.last, 0, null);
    expect(after.events.map((e) => e.type)).toEqual(["approval.decided"]);
    expect(after.events[0]!.id).toBeGreaterThan(before.last);
    // The masked form is what the record and events show; the raw arguments are gone once decided.
    expect(JSON.stringify(after.events)).not.toContain("secret plan");
  });
});

describe("schema migration", () => {
  it("adds the key columns to a shard written before them, keeping its rows (admin-only), and re-runs harmlessly", async () => {
    const tenant = `t-${uid()}`;
    const old = await runInDurableObject(rawShard(tenant, 0), (instance: DurableObject, state) => {
      const sql = state.storage.sql;
      // Turn this shard back into one of schema 1 holding a record.
      sql.exec("DROP INDEX calls_by_key");
      for (const table of ["calls", "events", "tokens"]) sql.exec(`ALTER TABLE ${table} DROP COLUMN key_name`);
      sql.exec("UPDATE ledger_meta SET value = 1 WHERE key = 'schema'");
      const stored = JSON.stringify(record(tenant, "old", "succeeded"));
      sql.exec(
        `INSERT INTO calls (call_id, tool, args_hash, status, started_at, updated_at, record)
         VALUES ('old', 'echo', 'h', 'succeeded', 1, 1, ?)`,
        stored,
      );

      migrate(state.storage);
      migrate(state.storage);
      // A half-known state (columns there, version not recorded) migrates too.
      sql.exec("UPDATE ledger_meta SET value = 1 WHERE key = 'schema'");
      migrate(state.storage);
      const ledger = instance as unknown as Ledger;
      const columns = (table: string) =>
        sql
          .exec<{ name: string }>("SELECT name FROM pragma_table_info(?)", table)
          .toArray()
          .map((c) => c.name);
      return {
        columns: ["calls", "events", "tokens"].map((t) => columns(t).includes("key_name")),
        asAdmin: ledger.list({ limit: 5, viewer: null }),
        asKey: ledger.list({ limit: 5, viewer: { key: "k" } }),
      };
    });
    expect(old.columns).toEqual([true, true, true]);
    expect(old.asAdmin.map((e) => [e.record.callId, e.key])).toEqual([["old", null]]);
    expect(old.asKey).toEqual([]);
    // The migrated shard takes new calls with their key.
    await tenantLedger(env, tenant)
      .shard(0)
      .record(record(tenant, "new", "failed"), "k");
    expect(
      (
        await tenantLedger(env, tenant)
          .shard(0)
          .list({ limit: 5, viewer: { key: "k" } })
      ).map((e) => e.record.callId),
    ).toEqual(["new"]);
  });
});

describe("events by key", () => {
  it("gives a key only its calls' events, skipping the rest, and key-less events only to admin", async () => {
    const tenant = `t-${uid()}`;
    const shard = tenantLedger(env, tenant).shard(0);
    await shard.record(record(tenant, "a1", "failed"), "a");
    await shard.publish({ type: "gate.changed", gate: "g", holders: 0, queued: 0 });
    await shard.record(record(tenant, "b1", "failed"), "b");
    const all = await shard.events(0, 0, null);
    expect(all.events.map((e) => e.type)).toEqual(["call.finished", "gate.changed", "call.finished"]);
    const forB = await shard.events(0, 0, { key: "b" });
    expect(forB.events.map((e) => (e.data as { callId: string }).callId)).toEqual(["b1"]);
    expect(forB.last).toBe(all.last);
    // Nothing of a's after the last id: a's reader moves past b's events without waiting for its own.
    const forA = await shard.events(1, 0, { key: "a" });
    expect(forA).toEqual({ events: [], last: all.last });
    // A waiting reader is woken by its own event, not by another key's.
    const waiting = shard.events(all.last, 5_000, { key: "a" });
    await shard.record(record(tenant, "b2", "failed"), "b");
    await shard.record(record(tenant, "a2", "failed"), "a");
    expect((await waiting).events.map((e) => (e.data as { callId: string }).callId)).toEqual(["a2"]);
  });
});
