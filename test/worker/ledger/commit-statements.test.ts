import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { CallRecord } from "../../../src/result";
import { commit } from "../../../worker/ledger/claims";
import type { ShardContext } from "../../../worker/ledger/context";
import { appendEventRows } from "../../../worker/ledger/events";
import { fullRecord, readRow } from "../../../worker/ledger/records";
import { DEFAULT_SETTINGS } from "../../../worker/ledger/settings";
import { Waiters } from "../../../worker/ledger/waiters";
import type { Ledger } from "../../../worker/ledger/ledger";
import { rawShardOfCall, record, uid } from "../helpers/ledger";

/**
 * What a committed read-only record costs its shard in SQL (worker/ledger/claims.ts commit): a new id
 * is inserted without being looked up first, and an id that has a row is answered from it, untouched.
 */
interface Outcome {
  kinds: string[];
  statements: string[][];
  stored?: CallRecord;
}

/** Runs the commits in a real shard's storage, noting the first words of each statement each one runs. */
function commits(
  tenant: string,
  inputs: { record: CallRecord; argsHash: string }[],
  after?: (sql: SqlStorage, callId: string) => Partial<Outcome>,
) {
  return runInDurableObject(rawShardOfCall(tenant, "any"), (_: DurableObject, state: DurableObjectState): Outcome => {
    const real = state.storage.sql;
    let seen: string[] = [];
    const sql = new Proxy(real, {
      get(target, prop) {
        if (prop !== "exec") return Reflect.get(target, prop, target) as unknown;
        return (query: string, ...bindings: SqlStorageValue[]) => {
          seen.push(query.trim().split(/\s+/).slice(0, 3).join(" "));
          return target.exec(query, ...bindings);
        };
      },
    });
    const ctx: ShardContext = {
      sql,
      settings: DEFAULT_SETTINGS,
      waiters: new Waiters(),
      now: () => Date.now(),
      emit: () => undefined,
      emitRows: (rows) => void appendEventRows(sql, rows, DEFAULT_SETTINGS.eventLimit),
      wakeBy: () => undefined,
    };
    const kinds: string[] = [];
    const statements: string[][] = [];
    for (const input of inputs) {
      seen = [];
      kinds.push(state.storage.transactionSync(() => commit(ctx, { ...input, key: "k1", surface: null })).kind);
      statements.push(seen);
    }
    return { kinds, statements, ...after?.(real, inputs[0]!.record.callId) };
  });
}

describe("a committed record's statements", () => {
  it("inserts a new id's row, its minute's metrics and its two events in three statements, with no read before", async () => {
    const tenant = `cs-${uid()}`;
    const rec = record(tenant, `c-${uid()}`, "succeeded", { output: { content: [{ type: "text", text: "7" }] } });
    const { kinds, statements } = await commits(tenant, [{ record: rec, argsHash: "h1" }]);
    expect(kinds).toEqual(["new"]);
    expect(statements).toEqual([["INSERT INTO calls", "INSERT INTO metrics", "INSERT INTO events"]]);
  });

  it("answers an id that has a row from the row and writes nothing: replay, or conflict for other arguments", async () => {
    const tenant = `cs-${uid()}`;
    const id = `c-${uid()}`;
    const first = record(tenant, id, "succeeded", { output: { content: [{ type: "text", text: "first" }] } });
    const again = record(tenant, id, "succeeded", { output: { content: [{ type: "text", text: "again" }] } });
    const { kinds, stored } = await commits(
      tenant,
      [
        { record: first, argsHash: "h1" },
        { record: again, argsHash: "h1" },
        { record: again, argsHash: "h2" },
      ],
      (sql, callId) => ({ stored: fullRecord(sql, readRow(sql, callId)!) }),
    );
    expect(kinds).toEqual(["new", "replay", "conflict"]);
    expect(stored?.output).toEqual(first.output);
  });

  it("keeps the full output of a record over the row cap when the same id is committed again", async () => {
    const tenant = `cs-${uid()}`;
    const id = `c-${uid()}`;
    const big = (text: string) =>
      record(tenant, id, "succeeded", { output: { content: [{ type: "text", text: text.repeat(70_000) }] } });
    const { kinds, stored } = await commits(
      tenant,
      [
        { record: big("a"), argsHash: "h1" },
        { record: big("b"), argsHash: "h1" },
      ],
      (sql, callId) => ({ stored: fullRecord(sql, readRow(sql, callId)!) }),
    );
    expect(kinds).toEqual(["new", "replay"]);
    expect(stored?.output).toEqual(big("a").output);
  });
});

describe("a group of writes", () => {
  it("is stored in one transaction, and one per write when a write of it throws", async () => {
    const tenant = `cs-${uid()}`;
    const commitOf = (rec: CallRecord) => ({
      op: "commit" as const,
      input: { record: rec, argsHash: `h-${rec.callId}`, key: null },
    });
    const ok = [0, 1, 2].map((i) => commitOf(record(tenant, `g${i}-${uid()}`, "succeeded")));
    // commit() refuses a record that is not terminal: that write throws.
    const bad = commitOf(record(tenant, `bad-${uid()}`, "running"));
    const result = await runInDurableObject(
      rawShardOfCall(tenant, "any"),
      (instance: DurableObject, state: DurableObjectState) => {
        const ledger = instance as unknown as Ledger;
        const storage = state.storage;
        const run = storage.transactionSync;
        let transactions = 0;
        storage.transactionSync = <T>(closure: () => T): T => (transactions++, run.call(storage, closure) as T);
        try {
          const whole = ledger.writeMany(ok);
          const good = transactions;
          transactions = 0;
          const mixed = ledger.writeMany([
            commitOf(record(tenant, `m0-${uid()}`, "succeeded")),
            bad,
            commitOf(record(tenant, `m1-${uid()}`, "succeeded")),
          ]);
          return { whole: whole.map((o) => o.kind), good, mixed: mixed.map((o) => o.kind), withBad: transactions };
        } finally {
          storage.transactionSync = run;
        }
      },
    );
    expect(result.whole).toEqual(["new", "new", "new"]);
    expect(result.good).toBe(1);
    // The group's transaction, rolled back; then one per write (the failing one is tried twice, see transact.ts).
    expect(result.mixed).toEqual(["new", "error", "new"]);
    expect(result.withBad).toBe(1 + 1 + 2 + 1);
  });
});
