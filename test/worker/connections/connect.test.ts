import { runInDurableObject } from "cloudflare:test";
import { env as workerEnv } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { connectionsStore } from "../../../worker/connections/lazy/entry";
import { keyId } from "../../../worker/connections/lazy/seal";
import { userKey } from "../../../worker/identity/lazy/user";
import {
  apiRequests,
  CONNECTIONS_CONFIG as CONFIG,
  CONNECTIONS_SECRET,
  connectDemo,
  connectionsTenantEnv,
  type ConnectionsTenantEnv,
  connectionsUpstream,
  rewriteTokens,
  sealedRow,
  seenTokens,
  startConnect,
  storedTokens,
  userObject,
} from "../helpers/connections";
import { CALL_KEY, json, request } from "../helpers/requests";
import { Jar, throughProvider, toToolgate } from "../helpers/sign-in";

/**
 * Tools acting as the user, through real parts: the demo provider signs people in to the console, a
 * second oidc-provider is the upstream OAuth provider of the connection, and a loopback API answers
 * the items of whoever's token it gets (it asks the provider's userinfo). People connect in their
 * browser (connect route, provider's forms, callback); calls are made by a key acting for them.
 */

const up = connectionsUpstream;
const SECRET = CONNECTIONS_SECRET;
const tenantEnv = connectionsTenantEnv;
const ENV = tenantEnv("conn");
type TenantEnv = ConnectionsTenantEnv;
const connect = (login: string, env: TenantEnv = ENV) => connectDemo(login, env);

/** A browser holding only this connect cookie. */
function withConnectCookie(value: string): Jar {
  const jar = new Jar();
  jar.cookies.set("tg_connect", value);
  return jar;
}

/** One call of my_items by the chat key acting for `user` (none: for nobody). */
async function myItems(user?: string, env: TenantEnv = ENV) {
  const id = `c-${crypto.randomUUID().slice(0, 8)}`;
  const res = await request("/v1/calls", {
    key: CALL_KEY,
    env,
    headers: user ? { "toolgate-user": user } : {},
    body: { id, name: "my_items", arguments: {} },
  });
  const body = await json(res);
  return { id, body, record: body.calls[0] };
}

describe("tools acting as the user through a connection", () => {
  it("sends each user's own token: two users call the same tool and each sees their own items", async () => {
    await connect("alice");
    await connect("bob");
    const alice = await myItems("alice");
    const bob = await myItems("bob");
    expect(alice.record.status, JSON.stringify(alice.body)).toBe("succeeded");
    expect(alice.record.output.structured).toMatchObject({
      owner: "alice",
      items: ["alice's first item", expect.any(String)],
    });
    expect(bob.record.output.structured).toMatchObject({ owner: "bob" });
  });

  it("makes no upstream request for a user who has not connected, nor for a call made for nobody", async () => {
    const before = await apiRequests();
    const stranger = await myItems("carol");
    expect(stranger.record.status).toBe("denied");
    expect(stranger.record.error.code).toBe("denied");
    expect(stranger.record.error.message).toBe(
      "Connect Demo first (not connected to demo): open http://127.0.0.1:8787/connections/demo/connect, " +
        "then call again.",
    );
    const nobody = await myItems();
    expect(nobody.record.error).toMatchObject({ code: "denied" });
    expect(nobody.record.error.message).toMatch(/this call is made for no user/);
    expect(await apiRequests()).toBe(before);
  });

  it("refuses a replayed callback, a state that is not the connect's, another's code and another tenant", async () => {
    const alice = await connect("alice");
    const replay = await toToolgate(alice.back, ENV, withConnectCookie(alice.cookie));
    expect(replay.status).toBe(400);
    expect(await replay.text()).toMatch(/already used or has expired/);

    const bob = await startConnect("bob", ENV);
    const bobBack = new URL(await throughProvider(bob.authorize, "bob", new Jar(), up.idp.url));
    const bobCookie = bob.jar.cookies.get("tg_connect")!;
    // Another tenant's callback finds no connect of its own for that cookie.
    const otherTenant = { ...ENV, TOOLGATE_CONFIG: JSON.stringify({ ...CONFIG, name: "conn-other" }) };
    const elsewhere = await toToolgate(bobBack.href, otherTenant, withConnectCookie(bobCookie));
    expect(elsewhere.status).toBe(400);
    // A forged state is refused, and uses the connect up.
    const forged = new URL(bobBack);
    forged.searchParams.set("state", "forged-state-value");
    const refused = await toToolgate(forged.href, ENV, withConnectCookie(bobCookie));
    expect(refused.status).toBe(400);
    expect(await refused.text()).toMatch(/state_mismatch/);
    expect((await toToolgate(bobBack.href, ENV, withConnectCookie(bobCookie))).status).toBe(400);

    // A code and state brought to the browser of another connect: that connect's state is not theirs.
    const other = await startConnect("alice", ENV);
    const otherCookie = other.jar.cookies.get("tg_connect")!;
    const aliceAgain = await startConnect("alice", ENV);
    const aliceBack = await throughProvider(aliceAgain.authorize, "alice", new Jar(), up.idp.url);
    const crossed = await toToolgate(aliceBack, ENV, withConnectCookie(otherCookie));
    expect(crossed.status).toBe(400);
    expect(await crossed.text()).toMatch(/state_mismatch/);
  });

  it("keeps tokens sealed at rest, and out of records", async () => {
    await connect("alice");
    const call = await myItems("alice");
    expect(call.record.status).toBe("succeeded");
    const seen = ((await (await fetch(`${up.api}/seen`)).json()) as { seen: string[] }).seen;
    const tokens = seen.map((line) => line.replace(/^Bearer /, "")).filter((token) => token.length > 0);
    expect(tokens.length).toBeGreaterThan(0);
    const key = await userKey("conn", "alice");
    const ns = workerEnv.CONNECTIONS;
    const rows = await runInDurableObject(ns.get(ns.idFromName(`conn\n${key}`)), (_object, state) =>
      state.storage.sql.exec("SELECT * FROM tokens").toArray(),
    );
    const stored = JSON.stringify(rows);
    expect(stored).toContain("v1.");
    const record = await request(`/v1/calls/${call.record.callId}`, {
      key: CALL_KEY,
      env: ENV,
      headers: { "toolgate-user": "alice" },
    });
    const recorded = await record.text();
    expect(record.status).toBe(200);
    for (const token of tokens) {
      expect(stored).not.toContain(token);
      expect(recorded).not.toContain(token);
      expect(JSON.stringify(call.body)).not.toContain(token);
    }
  });

  it("refreshes an expiring token once for many concurrent calls, each of which succeeds", async () => {
    const env = tenantEnv("conn-refresh");
    await connect("alice", env);
    const before = await storedTokens("conn-refresh", "alice");
    await rewriteTokens("conn-refresh", "alice", (tokens) => ({ ...tokens, expiresAt: Date.now() - 1000 }));
    const seenBefore = (await seenTokens()).length;
    const calls = await Promise.all(Array.from({ length: 50 }, () => myItems("alice", env)));
    for (const call of calls) expect(call.record.status, JSON.stringify(call.record.error)).toBe("succeeded");
    const used = new Set((await seenTokens()).slice(seenBefore));
    const after = await storedTokens("conn-refresh", "alice");
    // One refresh: one new access token, which every call sent; the old one none.
    expect([...used]).toEqual([after.accessToken]);
    expect(after.accessToken).not.toBe(before.accessToken);
    expect(after.expiresAt).toBeGreaterThan(Date.now());
  });

  /** Revokes one of the user's tokens at the upstream provider (RFC 7009), as its user or admin would there. */
  async function revokeAtProvider(token: string): Promise<void> {
    const discovery = await fetch(`${up.idp.url}/.well-known/openid-configuration`);
    const { revocation_endpoint: endpoint } = (await discovery.json()) as { revocation_endpoint: string };
    const res = await fetch(endpoint, {
      method: "POST",
      headers: {
        authorization: `Basic ${btoa(`${up.idp.clientId}:${up.idp.clientSecret}`)}`,
        "content-type": "application/x-www-form-urlencoded",
      },
      body: new URLSearchParams({ token }),
    });
    expect(res.status).toBe(200);
  }

  it("refreshes a token the upstream API refuses before its expiry, and the call succeeds", async () => {
    const env = tenantEnv("conn-refused-token");
    await connect("alice", env);
    expect((await myItems("alice", env)).record.status).toBe("succeeded");
    const before = await storedTokens("conn-refused-token", "alice");
    const refuse = await fetch(`${up.api}/refuse`, { method: "POST", body: before.accessToken });
    expect(refuse.status).toBe(200);
    const seenBefore = (await seenTokens()).length;
    const call = await myItems("alice", env);
    expect(call.record.status, JSON.stringify(call.record.error)).toBe("succeeded");
    expect(call.record.output.structured).toMatchObject({ owner: "alice" });
    const after = await storedTokens("conn-refused-token", "alice");
    expect(after.accessToken).not.toBe(before.accessToken);
    // The refused token once, then the refreshed one.
    expect((await seenTokens()).slice(seenBefore)).toEqual([before.accessToken, after.accessToken]);
  });

  it("asks the user again when the provider revoked the whole connection, then works once they reconnect", async () => {
    const env = tenantEnv("conn-revoked-all");
    await connect("bob", env);
    expect((await myItems("bob", env)).record.status).toBe("succeeded");
    const tokens = await storedTokens("conn-revoked-all", "bob");
    await revokeAtProvider(tokens.refreshToken!);
    await revokeAtProvider(tokens.accessToken);
    const refused = await myItems("bob", env);
    expect(refused.record.status).toBe("denied");
    expect(refused.record.error.message).toMatch(
      /^Connect Demo first \(the refresh was refused: .*\): open \S+\/connections\/demo\/connect, then call again\.$/,
    );
    expect(JSON.stringify(refused.body)).not.toContain(tokens.accessToken);
    await connect("bob", env);
    const again = await myItems("bob", env);
    expect(again.record.status, JSON.stringify(again.record.error)).toBe("succeeded");
    expect(again.record.output.structured).toMatchObject({ owner: "bob" });
  });

  it("marks the connection as needing the user when the provider refuses the refresh", async () => {
    const env = tenantEnv("conn-refused");
    await connect("bob", env);
    await rewriteTokens("conn-refused", "bob", (tokens) => ({
      ...tokens,
      expiresAt: Date.now() - 1000,
      refreshToken: "revoked-at-the-provider",
    }));
    const before = await apiRequests();
    const refused = await myItems("bob", env);
    expect(refused.record.error.code).toBe("denied");
    expect(refused.record.error.message).toMatch(/^Connect Demo first \(the refresh was refused: .*invalid_grant/);
    const again = await myItems("bob", env);
    expect(again.record.error.message).toMatch(/^Connect Demo first \(the connection to demo must be made again\)/);
    expect(await apiRequests()).toBe(before);
    // Connecting again makes it whole.
    await connect("bob", env);
    expect((await myItems("bob", env)).record.status).toBe("succeeded");
  });

  it("the provider down: a refresh ends upstream_error naming it, a connect stores nothing, no token leaks", async () => {
    const env = tenantEnv("conn-down");
    await connect("alice", env);
    const before = await storedTokens("conn-down", "alice");
    await rewriteTokens("conn-down", "alice", (tokens) => ({ ...tokens, expiresAt: Date.now() - 1000 }));
    const expired = await storedTokens("conn-down", "alice");
    // The same tenant, its provider's token endpoint unreachable (nothing listens on port 1).
    const config = JSON.parse(env.TOOLGATE_CONFIG);
    config.connections.demo.tokenEndpoint = "http://127.0.0.1:1/token";
    const down = { ...env, TOOLGATE_CONFIG: JSON.stringify(config) };
    const calls = await apiRequests();
    const failed = await myItems("alice", down);
    expect(failed.record.status).toBe("failed");
    expect(failed.record.error.code).toBe("upstream_error");
    expect(failed.record.error.message).toBe(
      "Demo could not refresh the user's connection: 127.0.0.1:1 could not be reached",
    );
    expect(await apiRequests()).toBe(calls);
    // Nothing changed: the same tokens, not marked as needing the user; with the provider back, the call runs.
    expect(await storedTokens("conn-down", "alice")).toEqual(expired);
    const text = JSON.stringify(failed.body);
    for (const token of [before.accessToken, before.refreshToken!]) expect(text).not.toContain(token);
    expect((await myItems("alice", env)).record.status).toBe("succeeded");

    // A connect whose code exchange cannot reach the provider: 503 naming it, and no tokens for bob.
    const bob = await startConnect("bob", down);
    const back = await throughProvider(bob.authorize, "bob", new Jar(), up.idp.url);
    const callback = await toToolgate(back, down, bob.jar);
    expect(callback.status).toBe(503);
    expect(await callback.text()).toBe(
      "The connection was not made: provider_unreachable: 127.0.0.1:1 could not be reached.\n",
    );
    const bobKey = await userKey("conn-down", "bob");
    const bobRows = await runInDurableObject(
      workerEnv.CONNECTIONS.get(workerEnv.CONNECTIONS.idFromName(`conn-down\n${bobKey}`)),
      (_object, state) => state.storage.sql.exec("SELECT * FROM tokens").toArray(),
    );
    expect(bobRows).toEqual([]);
  });

  it("opens rows sealed under the previous secret after a rotation, and seals them again under the new one", async () => {
    await connect("alice", tenantEnv("conn-rotate"));
    const object = await userObject("conn-rotate", "alice");
    const owner = { tenant: "conn-rotate", userKey: await userKey("conn-rotate", "alice") };
    const NEW = "rotated-connections-secret-0123456789-xyz";
    const sealedBy = async () => (await sealedRow(object)).split(".")[1];
    expect(await sealedBy()).toBe(await keyId(SECRET));
    await runInDurableObject(object, async (_object, state) => {
      const sql = state.storage.sql;
      // Without the secret that sealed it, nothing opens.
      expect(await connectionsStore.loadTokens(sql, [NEW], owner, "demo")).toBe("unreadable");
      const loaded = await connectionsStore.loadTokens(sql, [NEW, SECRET], owner, "demo");
      expect(loaded).toMatchObject({ needsUser: false, tokens: { accessToken: expect.any(String) } });
    });
    expect(await sealedBy()).toBe(await keyId(NEW));
    await runInDurableObject(object, async (_object, state) => {
      expect(await connectionsStore.loadTokens(state.storage.sql, [NEW], owner, "demo")).toMatchObject({
        needsUser: false,
      });
      expect(await connectionsStore.loadTokens(state.storage.sql, [SECRET], owner, "demo")).toBe("unreadable");
    });
    // The calls of the rotated tenant work with the new secret and the previous one set.
    const rotated = { ...tenantEnv("conn-rotate"), TOOLGATE_CONNECTIONS_SECRET: NEW };
    const call = await myItems("alice", { ...rotated, TOOLGATE_CONNECTIONS_SECRET_PREVIOUS: SECRET } as TenantEnv);
    expect(call.record.status).toBe("succeeded");
  });
});
