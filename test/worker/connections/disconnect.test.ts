import { runInDurableObject } from "cloudflare:test";
import { env as workerEnv } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { userKey } from "../../../worker/identity/lazy/user";
import {
  apiRequests,
  CONNECTIONS_CONFIG,
  connectDemo,
  connectionsTenantEnv,
  connectionsUpstream as up,
  seenTokens,
} from "../helpers/connections";
import { ADMIN_KEY, BASE, CALL_KEY, json, request } from "../helpers/requests";
import { type Jar, sessionHeaders, toToolgate } from "../helpers/sign-in";

/**
 * A person's connections in the API: the list (what they hold, never a token; admins: how many people
 * hold each) and the disconnect, which removes the tokens and revokes them at the provider (RFC 7009),
 * through the console's own session (same origin, Toolgate-Session) and the real upstream provider.
 */

const ROLES = { admins: { users: ["alice"], scopes: ["admin"] }, staff: { users: ["bob"], scopes: ["call"] } };

/** A tenant of its own whose people are admins (alice) or staff (bob); `demo` may be changed. */
function tenantEnv(name: string, demo: Record<string, unknown> = {}) {
  const config = {
    ...CONNECTIONS_CONFIG,
    name,
    identity: { ...CONNECTIONS_CONFIG.identity, roles: ROLES },
    connections: { demo: { ...CONNECTIONS_CONFIG.connections.demo, ...demo } },
  };
  return { ...connectionsTenantEnv(name), TOOLGATE_CONFIG: JSON.stringify(config) };
}

/** The console's request with the person's session. */
const asPerson = (jar: Jar, env: Record<string, unknown>, path: string, method = "GET") =>
  toToolgate(`${BASE}${path}`, env, jar, { method, headers: sessionHeaders(jar) });

async function myItems(user: string, env: Record<string, unknown>) {
  const res = await request("/v1/calls", {
    key: CALL_KEY,
    env,
    headers: { "toolgate-user": user },
    body: { name: "my_items", arguments: {} },
  });
  const body = await json(res);
  if (!body.calls) throw new Error(JSON.stringify(body));
  return body.calls[0];
}

async function storedRows(tenant: string, user: string) {
  const ns = workerEnv.CONNECTIONS;
  const object = ns.get(ns.idFromName(`${tenant}\n${await userKey(tenant, user)}`));
  return runInDurableObject(object, (_object, state) => state.storage.sql.exec("SELECT * FROM tokens").toArray());
}

describe("a person's connections: the list and the disconnect", () => {
  it("lists the person's own connections without tokens, and counts per provider for admins", async () => {
    const env = tenantEnv("conn-list");
    const alice = await connectDemo("alice", env);
    const bob = await connectDemo("bob", env);
    expect((await myItems("bob", env)).status).toBe("succeeded");

    const bobs = await asPerson(bob.jar, env, "/v1/connections");
    const text = await bobs.text();
    expect(bobs.status, text).toBe(200);
    expect(JSON.parse(text)).toEqual({
      connections: [
        {
          name: "demo",
          title: "Demo",
          connectUrl: `${BASE}/connections/demo/connect`,
          connected: true,
          scopes: ["openid"],
          connectedAt: expect.any(Number),
          usedAt: expect.any(Number),
          needsUser: false,
        },
      ],
    });
    for (const token of await seenTokens()) if (token) expect(text).not.toContain(token);

    const admins = await json(await asPerson(alice.jar, env, "/v1/connections"));
    expect(admins.counts).toEqual({ demo: 2 });
    expect(admins.connections[0]).toMatchObject({ name: "demo", connected: true, usedAt: null });

    // A tenant without connections says so (the console's view shows it).
    const none = await request("/v1/connections", { key: ADMIN_KEY });
    expect(none.status).toBe(404);
    expect((await json(none)).error.message).toBe("This tenant declares no connections.");
    // A key acting for nobody, without admin: nobody's connections to show.
    const nobody = await request("/v1/connections", { key: CALL_KEY, env });
    expect(nobody.status).toBe(403);
    expect((await json(nobody)).error.code).toBe("no_user");
  });

  it("disconnects: the tokens are gone, revoked at the provider, and the next call asks to connect again", async () => {
    const env = tenantEnv("conn-off");
    const alice = await connectDemo("alice", env);
    await connectDemo("bob", env);
    expect((await myItems("alice", env)).status).toBe("succeeded");
    const token = (await seenTokens()).at(-1)!;
    // The token works upstream before.
    const before = await fetch(`${up.api}/items`, { headers: { authorization: `Bearer ${token}` } });
    expect(before.status).toBe(200);

    // A cross-site DELETE (no Origin of this site) is refused and removes nothing.
    const forged = await toToolgate(`${BASE}/v1/connections/demo`, env, alice.jar, {
      method: "DELETE",
      headers: { ...sessionHeaders(alice.jar), origin: "https://evil.example" },
    });
    expect(forged.status).toBe(403);
    expect(await storedRows("conn-off", "alice")).toHaveLength(1);

    const off = await asPerson(alice.jar, env, "/v1/connections/demo", "DELETE");
    expect(off.status, await off.clone().text()).toBe(200);
    expect(await json(off)).toEqual({ disconnected: "demo", revoked: "revoked" });
    expect(await storedRows("conn-off", "alice")).toEqual([]);
    // The provider refuses the token now.
    const after = await fetch(`${up.api}/items`, { headers: { authorization: `Bearer ${token}` } });
    expect(after.status).toBe(401);

    const calls = await apiRequests();
    const refused = await myItems("alice", env);
    expect(refused.error).toMatchObject({ code: "denied", message: expect.stringMatching(/^Connect Demo first/) });
    expect(await apiRequests()).toBe(calls);
    expect((await json(await asPerson(alice.jar, env, "/v1/connections"))).counts).toEqual({ demo: 1 });
    expect((await json(await asPerson(alice.jar, env, "/v1/connections"))).connections[0]).toMatchObject({
      connected: false,
    });

    const again = await asPerson(alice.jar, env, "/v1/connections/demo", "DELETE");
    expect(again.status).toBe(404);
    expect((await json(again)).error.code).toBe("not_connected");
    const unknown = await asPerson(alice.jar, env, "/v1/connections/nope", "DELETE");
    expect(unknown.status).toBe(404);
  });

  it("says so when the provider offers no revocation, and removes the tokens all the same", async () => {
    const env = tenantEnv("conn-norevoke", {
      issuer: undefined,
      authorizationEndpoint: `${up.idp.url}/auth`,
      tokenEndpoint: `${up.idp.url}/token`,
    });
    const bob = await connectDemo("bob", env);
    const off = await asPerson(bob.jar, env, "/v1/connections/demo", "DELETE");
    expect(await json(off)).toEqual({ disconnected: "demo", revoked: "not_offered" });
    expect(await storedRows("conn-norevoke", "bob")).toEqual([]);
  });
});
