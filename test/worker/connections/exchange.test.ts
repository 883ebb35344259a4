import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { ACT_AS_KEYS, HEADER_KEY, TOKEN_KEY } from "../helpers/act-as";
import { CONNECTIONS_SECRET, connectionsUpstream, storedTokens, userObject } from "../helpers/connections";
import { ADMIN_KEY, json, request } from "../helpers/requests";
import { demoOidc, idpSecretEnv, Jar, signIn, toToolgate } from "../helpers/sign-in";
import { claims, jwksUri, labName, signToken } from "../helpers/token-lab";

/**
 * A connection of kind "exchange" (RFC 8693): no connect page; on a call, toolgate exchanges the user's
 * identity token (here the app's signed user token the call came with) at a loopback token exchange
 * server (test/servers/token-exchange.ts), which verifies it against the token lab's key set with jose
 * and issues a token of that user; a loopback API answers that user's items. Each test's users are its own.
 */

const exchange = connectionsUpstream.exchange;
/** Another app the tenant trusts and the exchange server does not: its tokens are forged to the server. */
const OTHER = { set: labName("other-app"), issuer: "https://chat.test/other-app" };

const connection = (more: Record<string, unknown>) => ({
  kind: "exchange",
  title: "Items",
  tokenEndpoint: `${exchange.url}/token`,
  clientId: exchange.clientId,
  clientSecret: "EXCHANGE_CLIENT_SECRET",
  ...more,
});
const tool = (name: string, via: string) => ({
  name,
  description: "The caller's items",
  url: `${exchange.api}/items`,
  connection: { name: via, scopes: ["items:read"] },
});

/** A tenant of its own per test: the isolate keeps a token it got for minutes, per tenant. */
const envOf = (name: string, more: Record<string, unknown> = {}) => ({
  TOOLGATE_CONFIG: JSON.stringify({
    name,
    tools: ["add"],
    keys: ACT_AS_KEYS,
    identity: {
      ...more,
      appTokens: [
        { issuer: exchange.trust.issuer, audience: exchange.trust.audience, jwksUri: jwksUri(exchange.trust.set) },
        { issuer: OTHER.issuer, audience: exchange.trust.audience, jwksUri: jwksUri(OTHER.set) },
      ],
    },
    connections: {
      items: connection({ audience: "items-api", resource: exchange.api }),
      brief: connection({ audience: "short-lived" }),
      down: connection({ tokenEndpoint: "http://127.0.0.1:1/token" }),
    },
    http: [tool("my_items", "items"), tool("brief_items", "brief"), tool("down_items", "down")],
    egress: { allowHttpHosts: ["127.0.0.1"] },
  }),
  EXCHANGE_CLIENT_SECRET: exchange.clientSecret,
  TOOLGATE_CONNECTIONS_SECRET: CONNECTIONS_SECRET,
});
type Env = ReturnType<typeof envOf>;

const uid = (label: string) => `${label}-${crypto.randomUUID().slice(0, 8)}`;

/** The app's signed user token of `sub` (its issuer: the one the exchange server trusts, unless `app`). */
const userToken = (
  sub: string,
  more: Record<string, unknown> = {},
  app: { set: string; issuer: string } = exchange.trust,
) => signToken(app.set, claims(app.issuer, exchange.trust.audience, { sub, ...more }));

/** One call of `name`, with the chat key sending `token`, or the header key naming `user`. */
async function call(env: Env, name: string, as: { token: string } | { user: string }) {
  const headers: Record<string, string> =
    "token" in as ? { "toolgate-user-token": as.token } : { "toolgate-user": as.user };
  const res = await request("/v1/calls", {
    key: "token" in as ? TOKEN_KEY : HEADER_KEY,
    env,
    headers,
    body: { id: uid("c"), name, arguments: {} },
  });
  const body = await json(res);
  expect(body.calls, JSON.stringify(body)).toBeDefined();
  return body.calls[0];
}

const exchangesOf = async (sub: string) =>
  (
    (await (await fetch(`${exchange.url}/exchanges`)).json()) as { exchanges: Record<string, string | null>[] }
  ).exchanges.filter((entry) => entry.sub === sub);
const apiRequests = async () =>
  ((await (await fetch(`${exchange.api}/requests`)).json()) as { requests: number }).requests;

/** How many token rows the user's Connections object holds. */
async function rows(tenant: string, user: string): Promise<number> {
  return runInDurableObject(await userObject(tenant, user), (_object, state) => {
    const tables = state.storage.sql.exec("SELECT 1 FROM sqlite_master WHERE name = 'tokens'").toArray();
    if (tables.length === 0) return 0;
    return state.storage.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM tokens").one().n;
  });
}

describe("an exchange connection (RFC 8693)", () => {
  it("exchanges each user's token for their own, keeps it sealed and re-uses it", async () => {
    const tenant = uid("xchg");
    const env = envOf(tenant);
    const [alice, bob] = [uid("alice"), uid("bob")];
    const first = await call(env, "my_items", { token: await userToken(alice) });
    expect(first.status, JSON.stringify(first.error)).toBe("succeeded");
    expect(first.output.structured.owner).toBe(alice);
    const theirs = await call(env, "my_items", { token: await userToken(bob) });
    expect(theirs.output.structured.owner).toBe(bob);
    const [exchanged] = await exchangesOf(alice);
    expect(exchanged).toEqual({
      sub: alice,
      subject_token_type: "urn:ietf:params:oauth:token-type:jwt",
      requested_token_type: "urn:ietf:params:oauth:token-type:access_token",
      audience: "items-api",
      resource: exchange.api,
      scope: "items:read",
    });
    // Another token of alice's, then a call naming her without one: her exchanged token serves both.
    const again = await call(env, "my_items", { token: await userToken(alice) });
    const named = await call(env, "my_items", { user: alice });
    expect([again.output.structured.owner, named.output.structured.owner]).toEqual([alice, alice]);
    expect(await exchangesOf(alice)).toHaveLength(1);
    const stored = await storedTokens(tenant, alice, "items");
    expect(stored.accessToken).toMatch(/^xt-/);
    expect(stored.scopes).toEqual(["items:read"]);
    expect(stored.expiresAt).toBeGreaterThan(Date.now() + 200_000);
    // Never in a record.
    const record = await request(`/v1/calls/${first.id}`, { key: ADMIN_KEY, env });
    expect(await record.text()).not.toContain(stored.accessToken);
  });

  it("exchanges again once the token is about to expire", async () => {
    const env = envOf(uid("xchg-brief"));
    const alice = uid("alice");
    const calls = [];
    for (let i = 0; i < 2; i++) calls.push(await call(env, "brief_items", { token: await userToken(alice) }));
    expect(calls.map((made) => made.output?.structured?.owner)).toEqual([alice, alice]);
    expect(await exchangesOf(alice)).toHaveLength(2);
  });

  it("without an identity token to exchange: denied, naming what to send, no upstream request", async () => {
    const env = envOf(uid("xchg-none"));
    const before = await apiRequests();
    const refused = await call(env, "my_items", { user: uid("carol") });
    expect([refused.status, refused.error.code]).toEqual(["denied", "denied"]);
    expect(refused.error.message).toMatch(
      /^Items exchanges the user's identity token for a token of its own, and this call has no identity token/,
    );
    expect(refused.error.message).toContain("(Toolgate-User-Token), or sign in to the console again");
    expect(await apiRequests()).toBe(before);
  });

  it("a subject token the provider refuses (forged to it, or expired): denied, nothing stored", async () => {
    const tenant = uid("xchg-refused");
    const env = envOf(tenant);
    const [mallory, late] = [uid("mallory"), uid("late")];
    const forged = await call(env, "my_items", { token: await userToken(mallory, {}, OTHER) });
    expect(forged.status).toBe("denied");
    expect(forged.error.message).toMatch(/and refused it \(the provider's token endpoint answered invalid_grant/);
    // Expired a few seconds ago: toolgate's clock tolerance lets it through, the provider's does not.
    const now = Math.floor(Date.now() / 1000);
    const expired = await call(env, "my_items", { token: await userToken(late, { iat: now - 300, exp: now - 5 }) });
    expect(expired.status, JSON.stringify(expired.error)).toBe("denied");
    expect(expired.error.message).toContain("invalid_grant");
    expect([await rows(tenant, mallory), await rows(tenant, late)]).toEqual([0, 0]);
  });

  it("the exchange server down: upstream_error saying so, nothing stored", async () => {
    const tenant = uid("xchg-down");
    const env = envOf(tenant);
    const alice = uid("alice");
    const failed = await call(env, "down_items", { token: await userToken(alice) });
    expect([failed.status, failed.error.code]).toEqual(["failed", "upstream_error"]);
    expect(failed.error.message).toMatch(
      /^Items could not exchange the user's identity token: 127\.0\.0\.1:1 could not be reached/,
    );
    expect(await rows(tenant, alice)).toBe(0);
  });

  it("exchanges the ID token of the person's console sign-in, kept sealed in their object", async () => {
    const tenant = uid("xchg-oidc");
    const env = { ...envOf(tenant, { oidc: demoOidc() }), ...idpSecretEnv() };
    const before = (await exchangesOf("alice")).length;
    const { callback } = await signIn("alice", env);
    expect(callback.status, await callback.clone().text()).toBe(302);
    // The kept ID token opens only with the tenant's secret.
    const sealed = await runInDurableObject(
      await userObject(tenant, "alice"),
      (_object, state) => state.storage.sql.exec<{ sealed: string }>("SELECT sealed FROM subject").one().sealed,
    );
    expect(sealed).not.toMatch(/^eyJ/);
    // A call for alice with no token of its own: her sign-in's ID token is exchanged.
    const made = await call(env, "my_items", { user: "alice" });
    expect(made.status, JSON.stringify(made.error)).toBe("succeeded");
    expect(made.output.structured.owner).toBe("alice");
    const exchanges = await exchangesOf("alice");
    expect(exchanges).toHaveLength(before + 1);
    expect(exchanges.at(-1)!.subject_token_type).toBe("urn:ietf:params:oauth:token-type:id_token");
    // bob never signed in: nothing to exchange.
    const bob = await call(env, "my_items", { user: "bob" });
    expect(bob.status).toBe("denied");
  });

  it("has no connect page", async () => {
    const page = await toToolgate("/connections/items/connect", envOf(uid("xchg-page")), new Jar());
    expect(page.status).toBe(400);
    expect(await page.text()).toMatch(/^Items needs no connect: toolgate exchanges your sign-in for its token/);
  });
});
