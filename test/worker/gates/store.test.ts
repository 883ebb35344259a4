import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { expect, it } from "vitest";
import { waitEnd } from "../../../src/gates/queue";
import { loadState, migrate, persist } from "../../../worker/gates/store";

const stubOf = (name: string) => env.GATES.get(env.GATES.idFromName(name)) as unknown as DurableObjectStub;

it("reads a gate stored before its rules were kept whole (limit and maxQueue settings, a waiter's end of wait)", async () => {
  await runInDurableObject(stubOf(`legacy-${crypto.randomUUID()}`), (_instance, state) => {
    const sql = state.storage.sql;
    // The shape of an older gate: no rules columns, settings as limit / maxQueue, the end of the wait
    // in max_wait_until.
    sql.exec("DROP TABLE IF EXISTS slots");
    sql.exec("DROP TABLE IF EXISTS meta");
    sql.exec(`CREATE TABLE slots (call_id TEXT PRIMARY KEY, tool TEXT NOT NULL, state TEXT NOT NULL,
      seq INTEGER NOT NULL, since INTEGER NOT NULL, expires_at INTEGER, lease_ms INTEGER NOT NULL, deadline INTEGER,
      max_wait_until INTEGER)`);
    sql.exec("CREATE TABLE meta (k TEXT PRIMARY KEY, v TEXT NOT NULL)");
    sql.exec("INSERT INTO meta (k, v) VALUES ('limit', '2'), ('maxQueue', '7')");
    sql.exec("INSERT INTO slots VALUES ('a', 't', 'held', 0, 100, 5100, 5000, NULL, NULL)");
    sql.exec("INSERT INTO slots VALUES ('b', 't', 'queued', 1, 200, NULL, 5000, 900, 1200)");
    sql.exec("INSERT INTO slots VALUES ('c', 't', 'queued', 2, 300, NULL, 5000, 900, NULL)");

    migrate(sql);
    const loaded = loadState(sql);
    expect(loaded.rules).toEqual({ limit: 2, maxQueue: 7 });
    expect([...loaded.holders.keys()]).toEqual(["a"]);
    expect(loaded.waiters.map((w) => [w.callId, waitEnd(w)])).toEqual([
      ["b", 1200],
      ["c", undefined],
    ]);

    // Written again, the gate keeps its rules whole, and reads back the same.
    const saved = persist(
      sql,
      loaded,
      loaded.waiters.map((waiter) => ({ type: "queue", waiter })),
      "",
    );
    expect(JSON.parse(saved)).toEqual({ limit: 2, maxQueue: 7 });
    const again = loadState(sql);
    expect(again.rules).toEqual(loaded.rules);
    expect(again.waiters.map((w) => [w.callId, waitEnd(w)])).toEqual([
      ["b", 1200],
      ["c", undefined],
    ]);
  });
});
