import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { SECOND_ISOLATE_CONFIG } from "../../fixtures/second-isolate-tenant";
import { openSession, post } from "../helpers/mcp";
import { signIn } from "../helpers/oauth";
import { ACT_AS_KEYS, HEADER_KEY, TOKEN_KEY } from "../helpers/act-as";
import { ADMIN_KEY, BASE, CALL_KEY, json, request } from "../helpers/requests";
import { claims, jwksUri, labName, serveKeys, signToken } from "../helpers/token-lab";

/**
 * Chat-app backends acting for their users: a key with actAs sends Toolgate-User (or a signed
 * Toolgate-User-Token), and its calls run with the key's rights narrowed to the user's roles, under
 * the user's own rate limit and MCP sessions. Every refusal answers before anything runs: no record.
 */

const CHAT_B_KEY = "chat-b-key";
const APP_SET = labName("chat-app");
const APP_ISSUER = `https://chat.test/${APP_SET}`;
const APP_AUDIENCE = "toolgate-acme";

const CONFIG = JSON.stringify({
  name: "act-as",
  tools: ["add", "echo"],
  keys: ACT_AS_KEYS,
  identity: {
    appTokens: [{ issuer: APP_ISSUER, audience: APP_AUDIENCE, jwksUri: jwksUri(APP_SET), algorithms: ["RS256"] }],
    roles: {
      staff: { users: ["alice", "bob"], tools: ["add"] },
      admins: { users: ["alice"], scopes: ["admin"] },
    },
  },
});
const ENV = { TOOLGATE_CONFIG: CONFIG };

const user = (id: string) => ({ "toolgate-user": id });
const openai = (id: string, name = "add", args: unknown = { a: 1, b: 2 }) => ({
  id,
  type: "function",
  function: { name, arguments: JSON.stringify(args) },
});
const uid = (label: string) => `${label}-${crypto.randomUUID().slice(0, 8)}`;

/** One call of `add` with `key` and `headers`; answers the response and the call's id. */
async function call(key: string, headers: Record<string, string>, tool = "add") {
  const id = uid("call");
  const res = await request("/v1/calls/openai", { key, headers, body: [openai(id, tool)], env: ENV });
  return { res, id };
}

/** Whether the call was ever recorded, as the tenant's admin reads it. */
async function recorded(id: string): Promise<boolean> {
  const res = await request(`/v1/calls/${id}`, { key: ADMIN_KEY, env: ENV });
  return res.status === 200;
}

describe("a key acting for its app's users (Toolgate-User)", () => {
  it("acts for the user it names: whoami shows the user, their roles and the narrowed scopes", async () => {
    const bob = await json(await request("/v1/whoami", { key: HEADER_KEY, headers: user("bob"), env: ENV }));
    expect(bob).toEqual({
      tenant: "act-as",
      key: { name: "chat", scopes: ["call"] },
      user: { id: "bob", source: "header", roles: ["staff"] },
    });
    const alice = await json(await request("/v1/whoami", { key: HEADER_KEY, headers: user("alice"), env: ENV }));
    expect(alice.key.scopes.sort()).toEqual(["admin", "call"]);
    // The tenant's keys show which may act for users.
    const { keys } = await json(await request("/v1/tenant", { key: ADMIN_KEY, env: ENV }));
    expect(keys).toContainEqual({ name: "chat", scopes: ["admin"], actAs: "header" });
    expect(keys).toContainEqual({ name: "k", scopes: ["call"] });
    // Without the header the key is itself, as before users.
    expect(await json(await request("/v1/whoami", { key: HEADER_KEY, env: ENV }))).toEqual({
      tenant: "act-as",
      key: { name: "chat", scopes: ["admin"] },
    });
  });

  it("narrows the key to the user's roles: listings, calls and admin routes", async () => {
    const tools = await json(await request("/v1/tools/openai", { key: HEADER_KEY, headers: user("bob"), env: ENV }));
    expect(tools.tools.map((tool: { function: { name: string } }) => tool.function.name)).toEqual(["add"]);
    const { res } = await call(HEADER_KEY, user("bob"), "echo");
    expect((await json(res)).calls[0].status).toBe("denied");
    const allowed = await call(HEADER_KEY, user("bob"));
    expect(allowed.res.status).toBe(200);
    expect(await recorded(allowed.id)).toBe(true);
    expect((await request("/v1/tenant", { key: HEADER_KEY, headers: user("bob"), env: ENV })).status).toBe(403);
    expect((await request("/v1/tenant", { key: HEADER_KEY, headers: user("alice"), env: ENV })).status).toBe(200);
  });

  it.each([
    ["a key without actAs", CALL_KEY, user("bob"), 403, "act_as_forbidden", /"k" may not act for users .*actAs/],
    ["a token-only key sending an id", TOKEN_KEY, user("bob"), 403, "act_as_forbidden", /sends signed user tokens/],
    ["both headers", HEADER_KEY, { ...user("bob"), "toolgate-user-token": "x.y.z" }, 400, "invalid_user", /not both/],
    ["an id with a space", HEADER_KEY, user("bob smith"), 400, "invalid_user", /visible ASCII/],
    ["an id over 256 characters", HEADER_KEY, user("b".repeat(257)), 400, "invalid_user", /1-256/],
    ["a user no role includes", HEADER_KEY, user("mallory"), 403, "no_role", /"mallory"/],
  ])("refuses %s before anything runs", async (_label, key, headers, status, code, message) => {
    const { res, id } = await call(key, headers);
    expect(res.status).toBe(status);
    const body = await json(res);
    expect(body.error.code).toBe(code);
    expect(body.error.message).toMatch(message);
    expect(await recorded(id)).toBe(false);
  });

  it("refuses either header from an OAuth grant: a grant acts for its own user", async () => {
    const { tokens } = await signIn();
    for (const headers of [user("bob"), { "toolgate-user-token": "x.y.z" }]) {
      const res = await request("/v1/whoami", { key: tokens.access_token, headers });
      expect(res.status).toBe(403);
      expect((await json(res)).error).toEqual({
        code: "act_as_forbidden",
        message: expect.stringMatching(/^A grant acts for its own user/),
      });
    }
    expect((await request("/v1/whoami", { key: tokens.access_token })).status).toBe(200);
  });

  it("leaves a key's MCP session to the user who opened it", async () => {
    const target = { key: HEADER_KEY, vars: ENV };
    const alice = await openSession({ ...target, headers: user("alice") });
    const ping = { jsonrpc: "2.0", id: 1, method: "ping" };
    expect((await post(ping, alice, { ...target, headers: user("alice") })).status).toBe(200);
    // The same session id for another user of the same key, or for the key itself: not found.
    expect((await post(ping, alice, { ...target, headers: user("bob") })).status).toBe(404);
    expect((await post(ping, alice, target)).status).toBe(404);
  });

  it("shares a user's rate limit across keys and isolates", async () => {
    // The second isolate's tenant (test/fixtures/second-isolate-tenant.ts): everyone 2 calls per minute.
    const tenant = { TOOLGATE_CONFIG: SECOND_ISOLATE_CONFIG };
    const person = uid("carol");
    const echo = (id: string) => [openai(id, "echo", { text: "hi" })];
    for (const n of [1, 2]) {
      const res = await request("/v1/calls/openai", {
        key: HEADER_KEY,
        headers: user(person),
        body: echo(uid(`rate-${n}`)),
        env: tenant,
      });
      expect(res.status, `call ${n}`).toBe(200);
    }
    // Another key, in the other isolate, for the same person: over the person's limit.
    const second = (env as unknown as { SECOND_ISOLATE: Fetcher }).SECOND_ISOLATE;
    const over = await second.fetch(
      new Request(`${BASE}/v1/calls/openai`, {
        method: "POST",
        headers: { authorization: `Bearer ${CHAT_B_KEY}`, "content-type": "application/json", ...user(person) },
        body: JSON.stringify(echo(uid("rate-3"))),
      }),
    );
    expect(over.status).toBe(429);
    expect((await json(over)).calls[0].error).toMatchObject({
      code: "busy",
      message: expect.stringMatching(/^Rate limit of 2 calls per minute reached for this user/),
    });
    // Someone else is not limited by it, nor is the key acting for no one.
    const other = await request("/v1/calls/openai", {
      key: HEADER_KEY,
      headers: user(uid("dan")),
      body: echo(uid("rate-other")),
      env: tenant,
    });
    expect(other.status).toBe(200);
  });
});

describe("a key acting for its app's users (Toolgate-User-Token)", () => {
  const token = (more: Record<string, unknown> = {}, options = {}) =>
    signToken(APP_SET, claims(APP_ISSUER, APP_AUDIENCE, { sub: "bob", name: "Bob Builder", ...more }), options);

  it("acts for the user a token of a configured issuer names", async () => {
    for (const key of [TOKEN_KEY, HEADER_KEY]) {
      const res = await request("/v1/whoami", { key, headers: { "toolgate-user-token": await token() }, env: ENV });
      expect((await json(res)).user).toEqual({ id: "bob", name: "Bob Builder", source: "app-token", roles: ["staff"] });
    }
  });

  it("refuses a token that does not verify, naming why, and runs nothing", async () => {
    const cases: [string, Promise<string>, string][] = [
      ["forged", token({}, { key: "forged" }), /\(bad_signature\)/.source],
      ["expired", token({ iat: 1, exp: 2 }), /\(expired\)/.source],
      ["another audience", token({ aud: "elsewhere" }), /\(wrong_audience\)/.source],
      ["alg none", token({}, { mode: "none" }), /\(algorithm_not_allowed\)/.source],
      [
        "an unknown issuer",
        signToken(APP_SET, claims("https://evil.test", APP_AUDIENCE)),
        /identity\.appTokens/.source,
      ],
      ["no user id", token({ sub: undefined }), /no "sub" claim/.source],
    ];
    for (const [label, pending, message] of cases) {
      const { res, id } = await call(TOKEN_KEY, { "toolgate-user-token": await pending });
      expect(res.status, label).toBe(401);
      const { error } = await json(res);
      expect(error.code, label).toBe("invalid_user_token");
      expect(error.message, label).toMatch(new RegExp(message));
      expect(await recorded(id), label).toBe(false);
    }
  });

  it("answers 503 keys_unavailable while the issuer's keys cannot be had", async () => {
    const set = labName("down-app");
    const issuer = `https://chat.test/${set}`;
    const config = JSON.parse(CONFIG);
    config.identity.appTokens = [{ issuer, audience: APP_AUDIENCE, jwksUri: jwksUri(set) }];
    await serveKeys(set, "down");
    const res = await request("/v1/whoami", {
      key: TOKEN_KEY,
      headers: { "toolgate-user-token": await signToken(set, claims(issuer, APP_AUDIENCE)) },
      env: { TOOLGATE_CONFIG: JSON.stringify(config) },
    });
    expect(res.status).toBe(503);
    expect((await json(res)).error.code).toBe("keys_unavailable");
  });
});
