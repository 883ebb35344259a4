import { describe, expect, it } from "vitest";
import { json, request } from "../helpers/requests";
import { claims, signToken, tokenLab } from "../helpers/token-lab";

/**
 * A console behind Cloudflare Access: the assertion Access adds (Cf-Access-Jwt-Assertion) names the
 * person, verified against the team's certs (the token lab's origin plays the team domain, its set
 * "access" the certs) and the application's audience. It counts only with Toolgate-Session: 1 from
 * the same origin, as a session cookie does. Every refusal runs nothing and records nothing.
 */

const AUDIENCE = "a1b2c3-access-aud";
/** SHA-256 of "dev-admin-key". */
const ADMIN_KEY_HASH = "df76ff796f70d2c9cb055ea6280553caa27eda26b70e01082c160de75a05a4a9";
const ENV = {
  TOOLGATE_CONFIG: JSON.stringify({
    name: "behind-access",
    tools: ["add", "echo"],
    keys: [{ name: "admin", hash: ADMIN_KEY_HASH, scopes: ["admin"] }],
    identity: {
      access: { teamDomain: tokenLab, audience: AUDIENCE },
      roles: { admins: { groups: ["admins"], scopes: ["admin"] }, everyone: { groups: ["*"], tools: ["add"] } },
    },
  }),
};
const SAME_ORIGIN = { "toolgate-session": "1", "sec-fetch-site": "same-origin", origin: "http://127.0.0.1:8787" };

/** An assertion as Access signs it (RS256, the team's key), over `more` claims. */
const assertion = (more: Record<string, unknown> = {}, options = {}) =>
  signToken("access", claims(tokenLab, AUDIENCE, { email: "erin@acme.test", sub: "a-uuid", ...more }), options);

async function whoami(headers: Record<string, string>) {
  return request("/v1/whoami", { key: null, headers, env: ENV });
}

const uid = () => `access-${crypto.randomUUID().slice(0, 8)}`;

describe("people behind Cloudflare Access", () => {
  it("names the person by email, their groups under custom.groups", async () => {
    const token = await assertion({ custom: { groups: ["admins"] } });
    const res = await whoami({ ...SAME_ORIGIN, "cf-access-jwt-assertion": token });
    expect(res.status).toBe(200);
    const me = await json(res);
    expect(me.key.name).toMatch(/^access:u_[A-Za-z0-9_-]{32}$/);
    expect(me.key.scopes.sort()).toEqual(["admin", "call"]);
    expect(me.user).toEqual({
      id: "erin@acme.test",
      email: "erin@acme.test",
      source: "access",
      roles: ["admins", "everyone"],
    });
    const methods = await json(await request("/auth/methods", { key: null, env: ENV }));
    expect(methods).toEqual({ oidc: null, access: true });
  });

  it("ignores the assertion without Toolgate-Session (401 missing_key)", async () => {
    const token = await assertion();
    const res = await whoami({ "cf-access-jwt-assertion": token });
    expect(res.status).toBe(401);
    expect((await json(res)).error.code).toBe("missing_key");
  });

  it("refuses a cross-site request (403 cross_site) before reading the assertion", async () => {
    const token = await assertion();
    const res = await whoami({ ...SAME_ORIGIN, "sec-fetch-site": "cross-site", "cf-access-jwt-assertion": token });
    expect(res.status).toBe(403);
    expect((await json(res)).error.code).toBe("cross_site");
  });

  const now = () => Math.floor(Date.now() / 1000);
  it.each([
    ["forged", () => assertion({}, { key: "forged" }), /bad_signature/],
    ["expired", () => assertion({ iat: now() - 900, exp: now() - 600 }), /expired/],
    ["for another application", () => assertion({ aud: "another-aud" }), /wrong_audience/],
    ["from another team", () => assertion({ iss: "https://evil.cloudflareaccess.com" }), /wrong_issuer/],
    ["unsigned (alg none)", () => assertion({}, { mode: "none" }), /algorithm_not_allowed/],
    ["a service token's (no email)", () => assertion({ email: null }), /no "email" claim/],
  ])("refuses an assertion %s with 401 invalid_assertion; nothing runs", async (_label, make, reason) => {
    const token = await make();
    const id = uid();
    const res = await request("/v1/calls/openai", {
      key: null,
      headers: { ...SAME_ORIGIN, "cf-access-jwt-assertion": token },
      body: [{ id, type: "function", function: { name: "add", arguments: '{"a":1,"b":2}' } }],
      env: ENV,
    });
    expect(res.status).toBe(401);
    const body = await json(res);
    expect(body.error.code).toBe("invalid_assertion");
    expect(body.error.message).toMatch(reason);
    const record = await request(`/v1/calls/${id}`, { key: "dev-admin-key", env: ENV });
    expect(record.status).toBe(404);
  });

  it("refuses a request without an assertion (401 invalid_assertion)", async () => {
    const res = await whoami(SAME_ORIGIN);
    expect(res.status).toBe(401);
    expect((await json(res)).error.code).toBe("invalid_assertion");
  });
});
