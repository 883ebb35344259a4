import { describe, expect, it } from "vitest";
import { CONNECTIONS_CONFIG, CONNECTIONS_SECRET, connectionsUpstream, userObject } from "../helpers/connections";
import { CALL_KEY, json, request } from "../helpers/requests";
import { Jar, throughProvider, toToolgate } from "../helpers/sign-in";
import { claims, signToken, tokenLab } from "../helpers/token-lab";
import { runInDurableObject } from "cloudflare:test";

/**
 * Connections at a tenant behind Cloudflare Access (identity.access): the connect is bound to the
 * person the Access assertion names (Cf-Access-Jwt-Assertion, signed by the token lab's set "access",
 * its origin the team domain), checked when it starts and again at the callback. A callback by another
 * Access person, or with no assertion, is refused before the connect is used up; nothing is stored.
 */

const AUDIENCE = "conn-access-aud";
const envOf = (name: string) => ({
  TOOLGATE_CONFIG: JSON.stringify({
    ...CONNECTIONS_CONFIG,
    name,
    identity: { access: { teamDomain: tokenLab, audience: AUDIENCE } },
  }),
  UPSTREAM_CLIENT_SECRET: connectionsUpstream.idp.clientSecret,
  TOOLGATE_CONNECTIONS_SECRET: CONNECTIONS_SECRET,
});
type Env = ReturnType<typeof envOf>;

/** The assertion Access adds for `email`, as a header. */
const through = async (email: string) => ({
  "cf-access-jwt-assertion": await signToken("access", claims(tokenLab, AUDIENCE, { email, sub: `id-${email}` })),
});

/** `email` starts connecting Demo through Access: their browser's jar and the callback URL the provider sends. */
async function start(email: string, login: string, env: Env) {
  const jar = new Jar();
  const started = await toToolgate("/connections/demo/connect", env, jar, { headers: await through(email) });
  expect(started.status, await started.clone().text()).toBe(302);
  const back = await throughProvider(started.headers.get("location")!, login, new Jar(), connectionsUpstream.idp.url);
  return { jar, back };
}

async function myItems(user: string, env: Env) {
  const body = { id: `c-${crypto.randomUUID().slice(0, 8)}`, name: "my_items", arguments: {} };
  return (await json(await request("/v1/calls", { key: CALL_KEY, env, headers: { "toolgate-user": user }, body })))
    .calls[0];
}

const tokenRows = async (tenant: string, user: string) =>
  runInDurableObject(await userObject(tenant, user), (_object, state) => {
    const tables = state.storage.sql.exec("SELECT 1 FROM sqlite_master WHERE name = 'tokens'").toArray();
    return tables.length === 0 ? 0 : state.storage.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM tokens").one().n;
  });

describe("connections behind Cloudflare Access", () => {
  it("connects the person the assertion names, and their calls use their token", async () => {
    const env = envOf("conn-access");
    const { jar, back } = await start("alice@acme.test", "alice", env);
    const callback = await toToolgate(back, env, jar, { headers: await through("alice@acme.test") });
    expect(callback.status, await callback.clone().text()).toBe(200);
    const call = await myItems("alice@acme.test", env);
    expect(call.status, JSON.stringify(call.error)).toBe("succeeded");
    expect(call.output.structured.owner).toBe("alice");
  });

  it("refuses a connect without an assertion", async () => {
    const started = await toToolgate("/connections/demo/connect", envOf("conn-access-none"), new Jar());
    expect(started.status).toBe(401);
  });

  it("refuses the callback by another Access person, or with no assertion; the connect stays theirs", async () => {
    const tenant = "conn-access-cross";
    const env = envOf(tenant);
    const { jar, back } = await start("alice@acme.test", "alice", env);
    const cookie = jar.cookies.get("tg_connect")!;
    const withCookie = () => {
      const browser = new Jar();
      browser.cookies.set("tg_connect", cookie);
      return browser;
    };
    const bob = await toToolgate(back, env, withCookie(), { headers: await through("bob@acme.test") });
    expect(bob.status).toBe(403);
    expect(await bob.text()).toMatch(/^This connect was started by another person/);
    const none = await toToolgate(back, env, withCookie());
    expect(none.status).toBe(403);
    expect(await tokenRows(tenant, "alice@acme.test")).toBe(0);
    // Neither used it up: alice, through Access, finishes it.
    const alice = await toToolgate(back, env, withCookie(), { headers: await through("alice@acme.test") });
    expect(alice.status, await alice.clone().text()).toBe(200);
    expect(await tokenRows(tenant, "alice@acme.test")).toBe(1);
  });
});
