import { describe, expect, it } from "vitest";
import { pkce, redeem, register, startConsent, withEnv } from "../helpers/oauth";
import { ADMIN_KEY, BASE, json, request } from "../helpers/requests";
import { demoOidc, idpSecretEnv, type Jar, sessionHeaders, signIn } from "../helpers/sign-in";

/**
 * MCP connectors signed in by the person who uses them: a person approves the consent for themselves
 * (the grant's library user is their user key, its props name them and the tenant), within their
 * roles; they list and revoke their own connectors; admins see and revoke all. A grant acts for its
 * person at each use with the roles of now, and only at the tenant that made it.
 */

/** SHA-256 of "dev-admin-key", "dev-call-key" and "chat-header-key". */
const ADMIN_KEY_HASH = "df76ff796f70d2c9cb055ea6280553caa27eda26b70e01082c160de75a05a4a9";
const CALL_KEY_HASH = "06311ac15f2412fb7144a9977924f7a6a137403f1201f5bd0588cc02cd08e33f";
const CHAT_KEY_HASH = "4df506aaf65544de90410bb89044c2c43cecba63a4f536ea3e75f4d7f5891518";
const CHAT_KEY = "chat-header-key";

const ROLES = {
  admins: { groups: ["admins"], scopes: ["admin"] },
  staff: { groups: ["staff"], tools: ["add"] },
  /** The chat app's users (by the id its key sends). */
  apps: { users: ["carol"], tools: ["add"] },
};

function tenantEnv(name = "connectors", roles: Record<string, unknown> = ROLES) {
  return {
    TOOLGATE_CONFIG: JSON.stringify({
      name,
      tools: ["add", "echo"],
      keys: [
        { name: "admin", hash: ADMIN_KEY_HASH, scopes: ["admin"] },
        { name: "k", hash: CALL_KEY_HASH, scopes: ["call"] },
        { name: "chat", hash: CHAT_KEY_HASH, scopes: ["admin"], actAs: "header" },
      ],
      identity: { oidc: demoOidc(), roles },
    }),
    ...idpSecretEnv(),
  };
}
const ENV = tenantEnv();

/** A pending consent for a new client: its handle and the browser's binding cookie. */
async function pending(env = ENV) {
  return withEnv(env, async () => {
    const clientId = await register();
    const { verifier, challenge } = await pkce();
    const consent = await startConsent({ clientId, challenge, scope: "call" });
    return { clientId, verifier, consent };
  });
}

/** The consent page's request, with the person's session (jar) or a key, and the consent's cookie. */
async function onConsent(
  consent: { handle: string; cookie: string },
  who: { jar: Jar } | { key: string; headers?: Record<string, string> },
  body?: Record<string, unknown>,
  env = ENV,
) {
  const path = `/v1/oauth/consents/${encodeURIComponent(consent.handle)}`;
  if ("jar" in who) {
    const session = sessionHeaders(who.jar);
    const headers = { ...session, cookie: `${session.cookie}; ${consent.cookie}` };
    return request(path, { key: null, headers, env, ...(body ? { body } : {}) });
  }
  const headers = { ...who.headers, cookie: consent.cookie };
  return request(path, { key: who.key, headers, env, ...(body ? { body } : {}) });
}

/** A connector approved by `who`: the access and refresh tokens, and the client. */
async function connect(who: { jar: Jar } | { key: string }, decision: Record<string, unknown> = {}, env = ENV) {
  const { clientId, verifier, consent } = await pending(env);
  const decided = await onConsent(consent, who, { decision: "approve", ...decision }, env);
  if (decided.status !== 200) throw new Error(`decision answered ${decided.status}: ${await decided.text()}`);
  const { redirectTo } = await json(decided);
  const tokens = await withEnv(env, () => redeem(BASE, clientId, verifier, redirectTo));
  return { clientId, tokens };
}

async function grantsOf(who: { jar: Jar } | { key: string }, env = ENV) {
  const res =
    "jar" in who
      ? await request("/v1/oauth/grants", { key: null, headers: sessionHeaders(who.jar), env })
      : await request("/v1/oauth/grants", { key: who.key, env });
  expect(res.status).toBe(200);
  return (await json(res)).grants as { id: string; owner: string; user: { id: string } | null }[];
}

/** A person's revocation of grant `id` from the console. */
const revokeAsPerson = (jar: Jar, id: string) =>
  request(`/v1/oauth/grants/${id}/revoke`, { key: null, method: "POST", headers: sessionHeaders(jar), env: ENV });

const uid = () => `conn-${crypto.randomUUID().slice(0, 8)}`;
const openai = (id: string, name = "add") => [{ id, type: "function", function: { name, arguments: '{"a":1,"b":2}' } }];

describe("connectors signed in by the person who uses them", () => {
  it("bob consents for himself: the grant acts for bob, within his role, its calls his", async () => {
    const { jar } = await signIn("bob", ENV);
    const { consent } = await pending();
    const shown = await json(await onConsent(consent, { jar }));
    expect(shown.approver).toEqual({ user: { id: "bob", name: "Bob Builder" }, admin: false });
    expect(shown.tools).toEqual(["add"]);
    const { tokens } = await connect({ jar });
    const me = await json(await request("/v1/whoami", { key: tokens.access_token, env: ENV }));
    expect(me.key.name).toMatch(/^oauth:/);
    expect(me.key.scopes).toEqual(["call"]);
    expect(me.user).toMatchObject({ id: "bob", name: "Bob Builder", source: "oidc", roles: ["staff"] });
    const id = uid();
    const denied = await request("/v1/calls/openai", { key: tokens.access_token, body: openai(id, "echo"), env: ENV });
    expect((await json(denied)).calls[0].status).toBe("denied");
    const mine = await grantsOf({ jar });
    const grant = mine.find((entry) => entry.id === tokens.access_token.split(":")[1])!;
    expect(grant.owner).toMatch(/^u_[A-Za-z0-9_-]{32}$/);
    expect(grant.user).toEqual({ id: "bob", name: "Bob Builder" });
  });

  it("refuses bob granting admin or tools beyond his role; nothing is granted", async () => {
    const { jar } = await signIn("bob", ENV);
    const before = (await grantsOf({ jar })).length;
    const { consent } = await pending();
    const admin = await onConsent(consent, { jar }, { decision: "approve", scope: "admin" });
    expect(admin.status).toBe(403);
    expect((await json(admin)).error).toMatchObject({ code: "forbidden", message: "Only admins may grant admin." });
    const foreign = await onConsent(consent, { jar }, { decision: "approve", tools: ["add", "echo"] });
    expect(foreign.status).toBe(400);
    expect((await json(foreign)).error.message).toMatch(/not yours to grant: echo/);
    expect(await grantsOf({ jar })).toHaveLength(before);
  });

  it("refuses consent from a key acting for a user, a grant, or a key without admin", async () => {
    const { jar } = await signIn("bob", ENV);
    const { tokens } = await connect({ jar });
    const { consent } = await pending();
    for (const who of [
      { key: CHAT_KEY, headers: { "toolgate-user": "carol" } },
      { key: tokens.access_token },
      { key: "dev-call-key" },
    ]) {
      const res = await onConsent(consent, who, { decision: "approve" });
      expect(res.status).toBe(403);
      expect((await json(res)).error.code).toBe("consent_needs_person");
    }
  });

  it("an admin key still grants for the tenant: owner tenant, no user", async () => {
    const { tokens } = await connect({ key: ADMIN_KEY });
    const me = await json(await request("/v1/whoami", { key: tokens.access_token, env: ENV }));
    expect(me.user).toBeUndefined();
    const all = await grantsOf({ key: ADMIN_KEY });
    expect(all.find((grant) => grant.owner === "tenant")?.user).toBeNull();
  });

  it("lets people revoke their own only; admins see and revoke everyone's", async () => {
    const alice = await signIn("alice", ENV);
    const bob = await signIn("bob", ENV);
    const hers = await connect({ jar: alice.jar });
    const his = await connect({ jar: bob.jar });
    // An access token is <user>:<grant id>:<secret>.
    const aliceGrant = (await grantsOf({ jar: alice.jar })).find(
      (g) => g.id === hers.tokens.access_token.split(":")[1],
    )!;
    const bobGrants = await grantsOf({ jar: bob.jar });
    expect(bobGrants.every((grant) => grant.user?.id === "bob")).toBe(true);
    const bobGrant = bobGrants.find((grant) => grant.id === his.tokens.access_token.split(":")[1])!;
    // Bob cannot revoke alice's: not found, and hers keeps working.
    expect((await revokeAsPerson(bob.jar, aliceGrant.id)).status).toBe(404);
    expect((await request("/v1/whoami", { key: hers.tokens.access_token, env: ENV })).status).toBe(200);
    // An admin key lists both people's, and revokes alice's naming its owner.
    const all = await grantsOf({ key: ADMIN_KEY });
    expect(all.some((grant) => grant.id === aliceGrant.id)).toBe(true);
    expect(all.some((grant) => grant.id === bobGrant.id)).toBe(true);
    const revoked = await request(`/v1/oauth/grants/${aliceGrant.id}/revoke`, {
      key: ADMIN_KEY,
      body: { owner: aliceGrant.owner },
      env: ENV,
    });
    expect(revoked.status).toBe(200);
    expect((await request("/v1/whoami", { key: hers.tokens.access_token, env: ENV })).status).toBe(401);
    // Bob revokes his own: its token stops at once.
    expect((await revokeAsPerson(bob.jar, bobGrant.id)).status).toBe(200);
    expect((await request("/v1/whoami", { key: his.tokens.access_token, env: ENV })).status).toBe(401);
  });

  it("applies the roles of now at each use: a person no role includes any more is refused", async () => {
    const { jar } = await signIn("bob", ENV);
    const { tokens } = await connect({ jar });
    const narrowed = tenantEnv("connectors", { admins: ROLES.admins });
    const res = await request("/v1/whoami", { key: tokens.access_token, env: narrowed });
    expect(res.status).toBe(403);
    expect((await json(res)).error.code).toBe("no_role");
  });

  it("refuses a grant of one tenant at another (401 invalid_token)", async () => {
    const { jar } = await signIn("bob", ENV);
    const { tokens } = await connect({ jar });
    const other = tenantEnv("other-connectors");
    const res = await request("/v1/whoami", { key: tokens.access_token, env: other });
    expect(res.status).toBe(401);
    expect((await json(res)).error.code).toBe("invalid_token");
  });
});
