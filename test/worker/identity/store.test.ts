import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { tenantIdentity } from "../../../worker/identity/address";
import type { Identity } from "../../../worker/identity/object";
import { beginLogin, type LoginTransaction, MAX_PENDING_LOGINS } from "../../../worker/identity/lazy/store";
import { userKey } from "../../../worker/identity/lazy/user";

/**
 * The Identity object (one per tenant that signs people in), through its RPC methods as the Worker
 * calls them: sign-ins are single use and expire, revocations last until the session would have
 * expired, grant owners page in order, secrets are stable. Each test has a tenant of its own.
 */

const tenant = () => `identity-${crypto.randomUUID().slice(0, 8)}`;
const identity = (name: string) => tenantIdentity(env, name).object();
/** The tenant's object as runInDurableObject takes it. */
const rawIdentity = (name: string) =>
  env.IDENTITY.get(env.IDENTITY.idFromName(name)) as unknown as DurableObjectStub<Identity>;
const hex = (n: number) => n.toString(16).padStart(64, "0");

function login(idHash: string, expiresAt = Date.now() + 600_000): LoginTransaction {
  return {
    idHash,
    state: "state-1",
    nonce: "nonce-1",
    verifier: "v".repeat(43),
    returnTo: "#/",
    origin: "https://t.example",
    expiresAt,
  };
}

describe("Identity object", () => {
  it("gives a sign-in back once: a second take (a replayed callback) finds nothing", async () => {
    const object = identity(tenant());
    const tx = login(hex(1));
    expect(await object.beginLogin(tx)).toBe("stored");
    expect(await object.takeLogin(tx.idHash)).toEqual(tx);
    expect(await object.takeLogin(tx.idHash)).toBeNull();
    expect(await object.takeLogin(hex(2))).toBeNull();
    expect(await object.takeLogin("not a hash")).toBeNull();
  });

  it("never gives back an expired sign-in, and prunes expired ones as others begin", async () => {
    const name = tenant();
    const object = identity(name);
    await object.beginLogin(login(hex(1), Date.now() - 1));
    expect(await object.takeLogin(hex(1))).toBeNull();
    await object.beginLogin(login(hex(2), Date.now() - 1));
    await object.beginLogin(login(hex(3)));
    const rows = await runInDurableObject(rawIdentity(name), (_instance, state) =>
      state.storage.sql.exec("SELECT id_hash FROM login_tx").toArray(),
    );
    expect(rows).toEqual([{ id_hash: hex(3) }]);
  });

  it(`keeps at most ${MAX_PENDING_LOGINS} sign-ins under way, dropping the oldest`, async () => {
    const name = tenant();
    const left = await runInDurableObject(rawIdentity(name), (_instance, state) => {
      const start = Date.now() + 600_000;
      for (let i = 0; i <= MAX_PENDING_LOGINS; i++) beginLogin(state.storage.sql, login(hex(i), start + i), Date.now());
      return state.storage.sql
        .exec<{ n: number; oldest: string }>(
          "SELECT count(*) AS n, (SELECT id_hash FROM login_tx ORDER BY expires_at LIMIT 1) AS oldest FROM login_tx",
        )
        .one();
    });
    expect(left).toEqual({ n: MAX_PENDING_LOGINS, oldest: hex(1) });
  });

  it("answers invalid to values out of bounds and stores none of them", async () => {
    const object = identity(tenant());
    expect(await object.beginLogin({ ...login(hex(1)), idHash: "short" })).toBe("invalid");
    expect(await object.beginLogin({ ...login(hex(1)), nonce: "has space" })).toBe("invalid");
    expect(await object.beginLogin({ ...login(hex(1)), returnTo: `#/${"a".repeat(700)}` })).toBe("invalid");
    expect(await object.takeLogin(hex(1))).toBeNull();
    expect(await object.revokeSession("has space", Date.now() + 1000)).toBe("invalid");
    expect(await object.revokedSessions()).toEqual([]);
  });

  it("lists revoked sessions until they would have expired", async () => {
    const object = identity(tenant());
    await object.revokeSession("sid-b", Date.now() + 60_000);
    await object.revokeSession("sid-a", Date.now() + 60_000);
    await object.revokeSession("sid-old", Date.now() - 1); // expired already: nothing to remember
    expect(await object.revokedSessions()).toEqual(["sid-a", "sid-b"]);
  });

  it("pages grant owners in key order, keeping their first time and their current name", async () => {
    const name = tenant();
    const object = identity(name);
    const people = await Promise.all(
      ["ann", "ben", "cat", "dan", "eve"].map(async (id) => ({ key: await userKey(name, id), id })),
    );
    for (const person of people)
      await object.noteGrantOwner(person.key, { id: person.id, name: person.id.toUpperCase() });
    const first = (await object.grantOwners(null, 2))[0]!;
    await object.noteGrantOwner(first.key, { id: first.id, name: "Renamed" });
    const pages: string[][] = [];
    let after: string | null = null;
    for (;;) {
      const page = await object.grantOwners(after, 2);
      if (page.length === 0) break;
      pages.push(page.map((owner) => owner.id));
      after = page[page.length - 1]!.key;
    }
    const sorted = [...people].sort((a, b) => (a.key < b.key ? -1 : 1)).map((p) => p.id);
    expect(pages).toEqual([sorted.slice(0, 2), sorted.slice(2, 4), sorted.slice(4)]);
    expect(await object.grantOwners(null, 1)).toEqual([
      { key: first.key, id: first.id, name: "Renamed", firstAt: first.firstAt },
    ]);
    expect(await object.noteGrantOwner("tenant", { id: "x" })).toBe("invalid");
  });

  it("makes a secret once and gives the same one ever after; names and tenants differ", async () => {
    const a = tenant();
    const one = await identity(a).secret("session");
    expect(one).toBeInstanceOf(Uint8Array);
    expect((one as Uint8Array).byteLength).toBe(32);
    expect(await identity(a).secret("session")).toEqual(one);
    expect(await identity(a).secret("other")).not.toEqual(one);
    expect(await identity(tenant()).secret("session")).not.toEqual(one);
    expect(await identity(a).secret("Not Valid")).toBe("invalid");
  });
});
