import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { UserRef } from "../../../src/contract/users";
import type { Ledger } from "../../../worker/ledger/ledger";
import { migrate } from "../../../worker/ledger/schema";
import { tenantLedger } from "../../../worker/ledger/address";
import type { Viewer } from "../../../worker/ledger/viewer";
import { claim, journal, rawShard, record, SHARDS, shardOfCall, uid } from "../helpers/ledger";

/**
 * The user in the ledger: each record keeps who it was made for, and a reader sees by key and user
 * (worker/ledger/viewer.ts). Rows from before the migration have no user: a person never sees them.
 */

const BOB: UserRef = { id: "bob", name: "Bob Builder", email: "bob@example.test", source: "header" };
const ALICE: UserRef = { id: "alice", name: "Alice Admin", source: "oidc" };

/** One finished call of `key` for `user` (none: undefined), through the Worker's journal. */
async function finished(tenant: string, callId: string, key: string, user?: UserRef) {
  const j = journal(tenant, { key, ...(user ? { user } : {}) });
  const begun = await j.begin(claim(tenant, callId));
  expect(begun.kind).toBe("new");
  await j.finish(record(tenant, callId, "succeeded"));
}

describe("records for users", () => {
  it("keeps the user with the record and shows each viewer what it may see", async () => {
    const tenant = `u-${uid()}`;
    await finished(tenant, "chat-bob", "chat", BOB);
    await finished(tenant, "chat-alice", "chat", ALICE);
    await finished(tenant, "chat-none", "chat");
    await finished(tenant, "other-bob", "other", BOB);
    const ledger = tenantLedger({ LEDGER: env.LEDGER, LEDGER_SHARDS: SHARDS }, tenant);
    const seen = async (viewer: Viewer, more: { user?: string } = {}) => {
      const ids: string[] = [];
      for (let n = 0; n < SHARDS; n++) {
        for (const entry of await ledger.shard(n).list({ viewer, limit: 50, ...more })) ids.push(entry.record.callId);
      }
      return ids.sort();
    };
    expect(await seen(null)).toEqual(["chat-alice", "chat-bob", "chat-none", "other-bob"]);
    expect(await seen({ key: "chat" })).toEqual(["chat-alice", "chat-bob", "chat-none"]);
    expect(await seen({ key: "chat", user: "bob" })).toEqual(["chat-bob"]);
    expect(await seen({ user: "bob" })).toEqual(["chat-bob", "other-bob"]);
    expect(await seen({ user: "mallory" })).toEqual([]);
    // The admin's filter by user.
    expect(await seen(null, { user: "alice" })).toEqual(["chat-alice"]);

    const entry = await shardOfCall(tenant, "chat-bob").get("chat-bob", { user: "bob" });
    expect(entry).toMatchObject({ key: "chat", user: BOB });
    expect(await shardOfCall(tenant, "chat-none").get("chat-none", null)).not.toHaveProperty("user");
    // Another user's call reads as absent, whatever the route: get, result, cancel.
    expect(await shardOfCall(tenant, "chat-bob").get("chat-bob", { user: "alice" })).toBeNull();
    expect(await shardOfCall(tenant, "chat-bob").get("chat-bob", { key: "chat", user: "alice" })).toBeNull();
    expect(await shardOfCall(tenant, "chat-bob").result("chat-bob", { user: "alice" }, 0, 10)).toBe("not_found");
    expect(await shardOfCall(tenant, "chat-bob").cancel("chat-bob", { user: "alice" })).toEqual({
      ok: false,
      error: "not_found",
    });
  });

  it("stores the user's reference alone, never their roles, groups or key", async () => {
    const tenant = `u-${uid()}`;
    const caller = { ...BOB, roles: ["staff"], groups: ["staff"], key: "u_secretish" } as UserRef;
    await finished(tenant, "lean", "chat", caller);
    const entry = await shardOfCall(tenant, "lean").get("lean", null);
    expect(entry?.user).toEqual(BOB);
  });

  it("answers conflict, never the record, for an id taken by another user of the same key", async () => {
    const tenant = `u-${uid()}`;
    await finished(tenant, "taken", "chat", BOB);
    const other = await journal(tenant, { key: "chat", user: ALICE }).begin(claim(tenant, "taken"));
    expect(other.kind).toBe("conflict");
    expect(JSON.stringify(other)).not.toContain("succeeded");
    const keyAlone = await journal(tenant, { key: "chat" }).begin(claim(tenant, "taken"));
    expect(keyAlone.kind).toBe("conflict");
    // The same key and user: the recorded outcome.
    const same = await journal(tenant, { key: "chat", user: BOB }).begin(claim(tenant, "taken"));
    expect(same).toMatchObject({ kind: "replay", record: { status: "succeeded" } });
    // A read-only call's deferred commit checks the user too.
    const readOnly = { policy: { readOnly: true } };
    const first = journal(tenant, { key: "chat", user: BOB });
    expect((await first.begin(claim(tenant, "ro", readOnly))).kind).toBe("new");
    await first.finish(record(tenant, "ro", "succeeded"));
    const second = journal(tenant, { key: "chat", user: ALICE });
    expect((await second.begin(claim(tenant, "ro", readOnly))).kind).toBe("new");
    const end = await second.finish(record(tenant, "ro", "succeeded", { output: { content: [] } }));
    expect(end).toMatchObject({ kind: "conflict" });
    expect((await shardOfCall(tenant, "ro").get("ro", null))?.user).toEqual(BOB);
  });
});

describe("events for users", () => {
  it("carries the user's id and name, and gives each viewer the events it may see", async () => {
    const tenant = `u-${uid()}`;
    const shard = tenantLedger(env, tenant).shard(0);
    await shard.record(record(tenant, "e-bob", "failed"), "chat", null, undefined, BOB);
    await shard.record(record(tenant, "e-alice", "failed"), "chat", null, undefined, ALICE);
    await shard.record(record(tenant, "e-key", "failed"), "chat");
    const all = await shard.events(0, 0, null);
    const ids = (batch: { events: { data: unknown }[] }) =>
      batch.events.map((e) => (e.data as { callId: string }).callId);
    expect(ids(all)).toEqual(["e-bob", "e-alice", "e-key"]);
    expect((all.events[0]!.data as { user: unknown }).user).toEqual({ id: "bob", name: "Bob Builder" });
    expect(all.events[2]!.data).not.toHaveProperty("user");
    expect(ids(await shard.events(0, 0, { user: "bob" }))).toEqual(["e-bob"]);
    expect(ids(await shard.events(0, 0, { key: "chat", user: "alice" }))).toEqual(["e-alice"]);
    expect(ids(await shard.events(0, 0, { key: "chat" }))).toEqual(["e-bob", "e-alice", "e-key"]);
    expect((await shard.recentEvents(10, { user: "bob" })).events).toHaveLength(1);
    expect((await shard.recentEvents(10, { user: "carol" })).events).toHaveLength(0);
  });

  it("keeps the viewer of an event token", async () => {
    const tenant = `u-${uid()}`;
    const shard = tenantLedger(env, tenant).shard(0);
    const { token } = await shard.issueToken(["call"], "session:u_x", 60_000, { user: "bob" });
    expect(await shard.checkToken(token)).toEqual({ scopes: ["call"], key: "session:u_x", viewer: { user: "bob" } });
  });
});

describe("schema migration for users", () => {
  it("adds the user columns to an older shard: its rows stay the admin's and their key's, never a person's", async () => {
    const tenant = `u-${uid()}`;
    const old = await runInDurableObject(rawShard(tenant, 0), (instance: DurableObject, state) => {
      const sql = state.storage.sql;
      // Turn this shard back into one from before users were recorded, holding a record of key k.
      sql.exec("DROP INDEX calls_by_user");
      for (const column of ["user_id", "user", "decided_by"]) sql.exec(`ALTER TABLE calls DROP COLUMN ${column}`);
      sql.exec("ALTER TABLE events DROP COLUMN user_id");
      for (const column of ["user_id", "viewer"]) sql.exec(`ALTER TABLE tokens DROP COLUMN ${column}`);
      sql.exec("UPDATE ledger_meta SET value = 7 WHERE key = 'schema'");
      sql.exec(
        `INSERT INTO calls (call_id, tool, args_hash, status, started_at, updated_at, record, key_name)
         VALUES ('old', 'echo', 'h', 'succeeded', 1, 1, ?, 'k')`,
        JSON.stringify(record(tenant, "old", "succeeded")),
      );
      migrate(state.storage);
      migrate(state.storage);
      const ledger = instance as unknown as Ledger;
      const columns = (table: string) =>
        sql
          .exec<{ name: string }>("SELECT name FROM pragma_table_info(?)", table)
          .toArray()
          .map((c) => c.name);
      const list = (viewer: Viewer) => ledger.list({ limit: 5, viewer }).map((e) => e.record.callId);
      return {
        calls: columns("calls").filter((c) => ["user_id", "user", "decided_by"].includes(c)),
        events: columns("events").includes("user_id"),
        tokens: columns("tokens").filter((c) => ["user_id", "viewer"].includes(c)),
        admin: list(null),
        key: list({ key: "k" }),
        person: list({ user: "bob" }),
        keyForUser: list({ key: "k", user: "bob" }),
      };
    });
    expect(old).toEqual({
      calls: ["user_id", "user", "decided_by"],
      events: true,
      tokens: ["user_id", "viewer"],
      admin: ["old"],
      key: ["old"],
      person: [],
      keyForUser: [],
    });
  });
});
