import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { CallRecord } from "../../../src/result";
import { appendEventRows, callEvent, eventRecord } from "../../../worker/ledger/events";
import { rawShardOfCall, record, shardOfCall, uid } from "../helpers/ledger";

/**
 * A committed record's two events are written in one statement from the record's row JSON
 * (worker/ledger/claims.ts insertFinished): they must read back exactly as the events built from the
 * record (callEvent + eventRecord) would, at every size, and the log stays bounded when events come in pairs.
 */
const commitOf = (rec: CallRecord) => ({ record: rec, argsHash: `h-${rec.callId}`, key: "k1", surface: null });

async function eventsOf(tenant: string, callId: string) {
  const { events } = await shardOfCall(tenant, callId).events(0, 0, null);
  return events
    .filter((event) => (event.data as { callId?: string }).callId === callId)
    .map((event) => event.data as Record<string, unknown>);
}

describe("a committed record's events", () => {
  const sizes: [string, Partial<CallRecord>][] = [
    ["a small record", { output: { content: [{ type: "text", text: "7" }] } }],
    [
      "a record over the event cap (8,000)",
      { args: { text: "a".repeat(3_000) }, output: { content: [{ type: "text", text: "b".repeat(20_000) }] } },
    ],
    ["a record over the row cap (64,000)", { output: { content: [{ type: "text", text: "c".repeat(70_000) }] } }],
    ["a record without arguments", { args: undefined, output: { content: [{ type: "text", text: "ok" }] } }],
  ];
  for (const [name, extra] of sizes) {
    it(`reads back as the events built from the record: ${name}`, async () => {
      const tenant = `er-${uid()}`;
      const rec = record(tenant, `c-${uid()}`, "succeeded", extra);
      const outcome = await shardOfCall(tenant, rec.callId).commit(commitOf(rec));
      expect(outcome.kind).toBe("new");
      const [started, finished, ...rest] = await eventsOf(tenant, rec.callId);
      expect(rest).toEqual([]);
      const at = started!.at as number;
      const shown = eventRecord(rec);
      const args = (shown as unknown as CallRecord).args ?? null;
      expect(started).toEqual(
        JSON.parse(JSON.stringify(callEvent("call.started", rec, { key: "k1" }, at, { args, attempt: 1 }))),
      );
      expect(finished).toEqual(
        JSON.parse(JSON.stringify(callEvent("call.finished", rec, { key: "k1" }, at, { record: shown }))),
      );
    });
  }
});

describe("appendEventRows", () => {
  it("keeps the log bounded when events come in pairs, whichever of the two lands on a multiple of 64", async () => {
    const tenant = `er-${uid()}`;
    const stub = rawShardOfCall(tenant, "any");
    const counts = await runInDurableObject(stub, (_: DurableObject, state: DurableObjectState) => {
      const sql = state.storage.sql;
      const limit = 10;
      const row = (n: number) => ({ type: "call.started", key: null, userId: null, json: JSON.stringify({ n }) });
      const count = () =>
        sql
          .exec<{ n: number; low: number; high: number }>(
            "SELECT COUNT(*) AS n, MIN(id) AS low, MAX(id) AS high FROM events",
          )
          .one();
      const base = sql.exec<{ id: number | null }>("SELECT max(id) AS id FROM events").one().id ?? 0;
      // Pairs from an even start: the multiple of 64 is the second of its pair; then from an odd start: the first.
      const seen: { n: number; low: number; high: number }[] = [];
      let next = base;
      if (next % 2 === 1) appendEventRows(sql, [row(++next)], limit);
      for (let i = 0; i < 40; i++) appendEventRows(sql, [row(++next), row(++next)], limit);
      seen.push(count());
      appendEventRows(sql, [row(++next)], limit);
      for (let i = 0; i < 40; i++) appendEventRows(sql, [row(++next), row(++next)], limit);
      seen.push(count());
      const last = JSON.parse(
        sql.exec<{ data: string }>("SELECT data FROM events ORDER BY id DESC LIMIT 1").one().data,
      ) as { n: number };
      return { seen, last: last.n, next };
    });
    for (const { n, low, high } of counts.seen) {
      expect(n).toBeLessThanOrEqual(10 + 64);
      expect(high - low + 1).toBe(n); // no gaps: the oldest go, in order
    }
    expect(counts.last).toBe(counts.next);
  });
});
