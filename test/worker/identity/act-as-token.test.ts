import { describe, expect, it } from "vitest";
import { JWKS_LIMITS } from "../../../worker/identity/lazy/jwks";
import type { ResolvedUser } from "../../../worker/identity/lazy/caller";
import { keepTokenUser, keptTokenUser, TOKEN_CACHE_LIMITS } from "../../../worker/identity/lazy/token-cache";
import { ACT_AS_KEYS, HEADER_KEY, TOKEN_KEY } from "../helpers/act-as";
import { ADMIN_KEY, CALL_KEY, json, request } from "../helpers/requests";
import { claims, jwksFetches, jwksUri, labName, signToken } from "../helpers/token-lab";

/**
 * Chat-app backends acting for their users with signed user tokens (Toolgate-User-Token): each
 * refusal answers before anything runs (no record), and a verified token is kept per tenant view
 * until its `exp`, so a conversation's calls pay for its signature once.
 */

const AUDIENCE = "toolgate-acme";

interface Issuer {
  set: string;
  issuer: string;
}
const newIssuer = (label: string): Issuer => {
  const set = labName(label);
  return { set, issuer: `https://chat.test/${set}` };
};
const entry = ({ set, issuer }: Issuer, more: Record<string, unknown> = {}) => ({
  issuer,
  audience: AUDIENCE,
  jwksUri: jwksUri(set),
  ...more,
});

const ROLES = { staff: { users: ["alice", "bob"], tools: ["add"] }, admins: { users: ["alice"], scopes: ["admin"] } };

/** A tenant trusting `issuers`, with a key per actAs and the call key without it. */
function tenant(name: string, issuers: Record<string, unknown>[], roles: Record<string, unknown> = ROLES) {
  const config = {
    name,
    tools: ["add", "echo"],
    keys: ACT_AS_KEYS,
    identity: { appTokens: issuers, roles },
  };
  return { TOOLGATE_CONFIG: JSON.stringify(config) };
}

const APP = newIssuer("chat-app");
const ENV = tenant("act-as-token", [entry(APP, { maxLifetimeSeconds: 600 })]);

const uid = (label: string) => `${label}-${crypto.randomUUID().slice(0, 8)}`;
const tokenHeader = (token: string) => ({ "toolgate-user-token": token });
const token = (more: Record<string, unknown> = {}, options = {}, app = APP) =>
  signToken(app.set, claims(app.issuer, AUDIENCE, { sub: "bob", name: "Bob Builder", ...more }), options);

/** One call of `tool` with `key` and `headers` in `env`; answers the response and the call's id. */
async function call(key: string, headers: Record<string, string>, env = ENV, tool = "add") {
  const id = uid("call");
  const body = [{ id, type: "function", function: { name: tool, arguments: '{"a":1,"b":2}' } }];
  return { res: await request("/v1/calls/openai", { key, headers, body, env }), id };
}

/** Whether the call was ever recorded, as the tenant's admin reads it. */
async function recorded(id: string, env = ENV): Promise<boolean> {
  return (await request(`/v1/calls/${id}`, { key: ADMIN_KEY, env })).status === 200;
}

const whoami = async (key: string, headers: Record<string, string>, env = ENV) =>
  request("/v1/whoami", { key, headers, env });

describe("a key acting for users with signed user tokens", () => {
  it("acts for the token's user with the key's rights narrowed to the user's roles", async () => {
    const bob = await token();
    const { res, id } = await call(TOKEN_KEY, tokenHeader(bob));
    expect(res.status).toBe(200);
    expect((await json(res)).calls[0].status).toBe("succeeded");
    expect(await recorded(id)).toBe(true);
    const denied = await call(TOKEN_KEY, tokenHeader(bob), ENV, "echo");
    expect((await json(denied.res)).calls[0].status).toBe("denied");
    // An admin key acting for alice keeps admin (both hold it); for bob it is a call key.
    const alice = await json(await whoami(HEADER_KEY, tokenHeader(await token({ sub: "alice", name: "Alice" }))));
    expect(alice.key.scopes.sort()).toEqual(["admin", "call"]);
    expect((await request("/v1/tenant", { key: HEADER_KEY, headers: tokenHeader(bob), env: ENV })).status).toBe(403);
  });

  it.each<[string, () => Promise<Record<string, string>>, string, number, string, RegExp]>([
    ["from a key without actAs", async () => tokenHeader(await token()), CALL_KEY, 403, "act_as_forbidden", /"k"/],
    [
      "signed by a key not in the set",
      async () => tokenHeader(await token({}, { key: "forged" })),
      TOKEN_KEY,
      401,
      "invalid_user_token",
      /\(bad_signature\)/,
    ],
    [
      "expired",
      async () => tokenHeader(await token({ iat: 100, exp: 200 })),
      TOKEN_KEY,
      401,
      "invalid_user_token",
      /\(expired\)/,
    ],
    [
      "for another audience",
      async () => tokenHeader(await token({ aud: "other" })),
      TOKEN_KEY,
      401,
      "invalid_user_token",
      /\(wrong_audience\)/,
    ],
    [
      "of an issuer the tenant does not trust",
      async () => tokenHeader(await token({ iss: "https://evil.test" })),
      TOKEN_KEY,
      401,
      "invalid_user_token",
      /identity\.appTokens/,
    ],
    [
      "unsigned (alg none)",
      async () => tokenHeader(await token({}, { mode: "none" })),
      TOKEN_KEY,
      401,
      "invalid_user_token",
      /\(algorithm_not_allowed\)/,
    ],
    [
      "HMAC-signed with the issuer's public key",
      async () => tokenHeader(await token({}, { mode: "hs256-public" })),
      TOKEN_KEY,
      401,
      "invalid_user_token",
      /\(algorithm_not_allowed\)/,
    ],
    [
      "living longer than maxLifetimeSeconds",
      async () => tokenHeader(await signToken(APP.set, claims(APP.issuer, AUDIENCE, { sub: "bob" }, 601))),
      TOKEN_KEY,
      401,
      "invalid_user_token",
      /\(lifetime_too_long\)/,
    ],
    [
      "naming no user",
      async () => tokenHeader(await token({ sub: undefined })),
      TOKEN_KEY,
      401,
      "invalid_user_token",
      /no "sub" claim/,
    ],
    ["not a JWT", async () => tokenHeader("not-a-token"), TOKEN_KEY, 401, "invalid_user_token", /identity\.appTokens/],
    [
      "naming a user no role includes",
      async () => tokenHeader(await token({ sub: "mallory" })),
      TOKEN_KEY,
      403,
      "no_role",
      /"mallory"/,
    ],
    [
      "beside a Toolgate-User",
      async () => ({ ...tokenHeader(await token()), "toolgate-user": "bob" }),
      HEADER_KEY,
      400,
      "invalid_user",
      /not both/,
    ],
  ])("refuses a token %s before anything runs", async (_label, headers, key, status, code, message) => {
    const { res, id } = await call(key, await headers());
    expect(res.status).toBe(status);
    const { error } = await json(res);
    expect(error.code).toBe(code);
    expect(error.message).toMatch(message);
    expect(await recorded(id)).toBe(false);
  });

  it("refuses a token kept from an earlier call when the key sending it may not act for users", async () => {
    const bob = await token();
    expect((await whoami(TOKEN_KEY, tokenHeader(bob))).status).toBe(200);
    const { res, id } = await call(CALL_KEY, tokenHeader(bob));
    expect([res.status, (await json(res)).error.code]).toEqual([403, "act_as_forbidden"]);
    expect(await recorded(id)).toBe(false);
  });
});

describe("verified user tokens kept per tenant view", () => {
  it("verifies a token once: its next use fetches no keys, even after its key set left the cache", async () => {
    const app = newIssuer("kept");
    const env = tenant("act-as-kept", [entry(app)]);
    const bob = await token({}, {}, app);
    expect((await json(await whoami(TOKEN_KEY, tokenHeader(bob), env))).user.id).toBe("bob");
    expect(await jwksFetches(app.set)).toBe(1);
    // Key sets of as many other issuers as the isolate keeps push this one's set out of it.
    const others = Array.from({ length: JWKS_LIMITS.uris }, (_, i) => newIssuer(`evict-${i}`));
    const crowd = tenant(
      "act-as-crowd",
      others.map((other) => entry(other)),
    );
    for (const other of others) {
      const res = await whoami(TOKEN_KEY, tokenHeader(await token({}, {}, other)), crowd);
      expect(res.status).toBe(200);
    }
    const again = await call(TOKEN_KEY, tokenHeader(bob), env);
    expect(again.res.status).toBe(200);
    expect(await recorded(again.id, env)).toBe(true);
    expect(await jwksFetches(app.set)).toBe(1);
    // Another token of the same issuer is verified: its key set is fetched again (it had left the cache).
    expect((await whoami(TOKEN_KEY, tokenHeader(await token({ sub: "alice" }, {}, app)), env)).status).toBe(200);
    expect(await jwksFetches(app.set)).toBe(2);
  });

  it("keeps no token across configurations: the new roles apply to a token verified before", async () => {
    const app = newIssuer("reconfigured");
    const before = tenant("act-as-reconfigured", [entry(app)]);
    const after = tenant("act-as-reconfigured", [entry(app)], { admins: { users: ["alice"], scopes: ["admin"] } });
    const bob = await token({}, {}, app);
    expect((await whoami(TOKEN_KEY, tokenHeader(bob), before)).status).toBe(200);
    const { res, id } = await call(TOKEN_KEY, tokenHeader(bob), after);
    expect([res.status, (await json(res)).error.code]).toEqual([403, "no_role"]);
    expect(await recorded(id, after)).toBe(false);
  });
});

describe("the token cache (worker/identity/token-cache.ts)", () => {
  const resolved = (id: string) => ({ user: { id }, rights: {} }) as unknown as ResolvedUser;
  const now = Date.UTC(2026, 0, 1);
  const exp = now / 1000 + 60;

  it("keeps a token's user until its exp, never at or after it", () => {
    const view = { config: {} } as never;
    keepTokenUser(view, "t1", resolved("bob"), exp, now);
    expect(keptTokenUser(view, "t1", now + 59_999)?.user.id).toBe("bob");
    expect(keptTokenUser(view, "t1", now + 60_000)).toBeUndefined();
    // Once past, it is gone, even for a clock that goes back.
    expect(keptTokenUser(view, "t1", now)).toBeUndefined();
  });

  it("keeps nothing already expired, too long, or for another tenant view", () => {
    const view = { config: {} } as never;
    keepTokenUser(view, "late", resolved("bob"), now / 1000, now);
    expect(keptTokenUser(view, "late", now - 1)).toBeUndefined();
    const long = "x".repeat(TOKEN_CACHE_LIMITS.tokenChars + 1);
    keepTokenUser(view, long, resolved("bob"), exp, now);
    expect(keptTokenUser(view, long, now)).toBeUndefined();
    keepTokenUser(view, "t", resolved("bob"), exp, now);
    expect(keptTokenUser({ config: {} } as never, "t", now)).toBeUndefined();
  });

  it("keeps at most its bound per view, the oldest going first", () => {
    const view = { config: {} } as never;
    for (let i = 0; i <= TOKEN_CACHE_LIMITS.entries; i++) keepTokenUser(view, `t${i}`, resolved(`u${i}`), exp, now);
    expect(keptTokenUser(view, "t0", now)).toBeUndefined();
    expect(keptTokenUser(view, "t1", now)?.user.id).toBe("u1");
    expect(keptTokenUser(view, `t${TOKEN_CACHE_LIMITS.entries}`, now)?.user.id).toBe(`u${TOKEN_CACHE_LIMITS.entries}`);
  });
});
