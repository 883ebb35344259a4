import { describe, expect, it } from "vitest";
import { CALL_KEY_HASH } from "../helpers/requests";
import { Jar, sessionHeaders, toToolgate } from "../helpers/sign-in";
import { issuerUrl, labName, scriptIssuer } from "../helpers/token-lab";

/**
 * Sign-ins a real provider never answers: the token lab's scripted OpenID provider sends forged,
 * expired, misaddressed and unsigned ID tokens, replayed nonces and state, and refusals of its own.
 * Each is refused at the callback with a plain-text page naming why, and no session is made.
 */

const SECRET = { LAB_OIDC_SECRET: "lab-client-secret" };
const CLIENT_ID = "lab-client";

/** A tenant signing people in with the lab issuer `name`, over `oidc` and `identity` fields. */
function tenantEnv(name: string, oidc: Record<string, unknown> = {}, identity: Record<string, unknown> = {}) {
  return {
    TOOLGATE_CONFIG: JSON.stringify({
      name: "lab-people",
      tools: ["add"],
      keys: [{ name: "k", hash: CALL_KEY_HASH, scopes: ["call"] }],
      identity: {
        oidc: { issuer: issuerUrl(name), clientId: CLIENT_ID, clientSecret: "LAB_OIDC_SECRET", ...oidc },
        ...identity,
      },
    }),
    ...SECRET,
  };
}

interface Attempt {
  jar: Jar;
  /** The provider's redirect back to toolgate. */
  back: string;
  /** The authorization request toolgate sent the browser with. */
  params: Record<string, string>;
}

/** /auth/login, then the lab's authorize endpoint: answers where it sends the browser back. */
async function begin(env: Record<string, unknown>): Promise<Attempt> {
  const jar = new Jar();
  const login = await toToolgate("/auth/login", env, jar);
  expect(login.status).toBe(302);
  const to = login.headers.get("location")!;
  const answer = await fetch(to, { redirect: "manual" });
  return { jar, back: answer.headers.get("location")!, params: Object.fromEntries(new URL(to).searchParams) };
}

/** The callback's answer, and proof no session came of it. */
async function callback(env: Record<string, unknown>, attempt: Attempt, url = attempt.back) {
  const res = await toToolgate(url, env, attempt.jar);
  return { res, text: await res.text() };
}

/** A refused callback: the status, a plain-text page naming `reason`, no session cookie, no session. */
async function expectRefused(
  env: Record<string, unknown>,
  result: { res: Response; text: string },
  jar: Jar,
  status: number,
  reason: RegExp,
) {
  expect(result.res.status).toBe(status);
  expect(result.res.headers.get("content-type")).toBe("text/plain; charset=utf-8");
  expect(result.text).toMatch(reason);
  expect(result.res.headers.getSetCookie().some((line) => /tg_session=/.test(line))).toBe(false);
  expect(jar.cookies.has("tg_session")).toBe(false);
  const me = await toToolgate("/v1/whoami", env, new Jar(), { headers: sessionHeaders(jar) });
  expect(me.status).toBe(401);
}

const now = () => Math.floor(Date.now() / 1000);

describe("sign-in refusals at the callback", () => {
  it("signs in when the lab answers well (the baseline the refusals differ from)", async () => {
    const name = labName("ok");
    const env = tenantEnv(name);
    await scriptIssuer(name, { sub: "carol" });
    const attempt = await begin(env);
    const { res } = await callback(env, attempt);
    expect(res.status).toBe(302);
    expect(attempt.jar.cookies.has("tg_session")).toBe(true);
  });

  it.each([
    ["a forged signature", { key: "forged" }, 400, /bad_signature/],
    ["an expired ID token", { claims: { iat: now() - 900, exp: now() - 600 } }, 400, /expired/],
    ["another audience", { claims: { aud: "someone-else" } }, 400, /wrong_audience/],
    ["another issuer", { claims: { iss: "https://evil.example" } }, 400, /wrong_issuer/],
    ["alg none", { mode: "none" }, 400, /algorithm_not_allowed/],
    ["HS256 keyed with the public key", { mode: "hs256-public" }, 400, /algorithm_not_allowed/],
    [
      "the provider's error=access_denied",
      { authorize: { error: "access_denied" } },
      403,
      /provider_error: .*access_denied/,
    ],
    ["an iss parameter of another issuer", { authorize: { iss: "https://evil.example" } }, 400, /issuer_mismatch/],
    [
      "the token endpoint's refusal",
      { token: { status: 400, body: { error: "invalid_grant" } } },
      400,
      /token_refused/,
    ],
  ])("refuses %s", async (_label, script, status, reason) => {
    const name = labName("refuse");
    const env = tenantEnv(name);
    await scriptIssuer(name, script);
    const attempt = await begin(env);
    await expectRefused(env, await callback(env, attempt), attempt.jar, status, reason);
  });

  it("refuses an algorithm the provider offers but the tenant does not allow", async () => {
    const name = labName("alg");
    const env = tenantEnv(name, { algorithms: ["ES256"] });
    const attempt = await begin(env);
    await expectRefused(env, await callback(env, attempt), attempt.jar, 400, /algorithm_not_allowed/);
  });

  it("refuses an ID token carrying a consumed sign-in's nonce", async () => {
    const name = labName("nonce");
    const env = tenantEnv(name);
    const first = await begin(env);
    expect((await callback(env, first)).res.status).toBe(302);
    await scriptIssuer(name, { claims: { nonce: first.params.nonce } });
    const second = await begin(env);
    await expectRefused(env, await callback(env, second), second.jar, 400, /nonce_mismatch/);
  });

  it("refuses a replayed callback: the sign-in is single use", async () => {
    const name = labName("replay");
    const env = tenantEnv(name);
    const attempt = await begin(env);
    const loginCookie = new Map(attempt.jar.cookies);
    expect((await callback(env, attempt)).res.status).toBe(302);
    const replay = new Jar();
    for (const [cookie, value] of loginCookie) replay.cookies.set(cookie, value);
    const again = await callback(env, { ...attempt, jar: replay });
    await expectRefused(env, again, replay, 400, /already used or has expired/);
  });

  it("refuses a state that is not the sign-in's", async () => {
    const name = labName("state");
    const env = tenantEnv(name);
    const attempt = await begin(env);
    const tampered = new URL(attempt.back);
    tampered.searchParams.set("state", "not-the-state");
    await expectRefused(env, await callback(env, attempt, tampered.href), attempt.jar, 400, /state_mismatch/);
  });

  it("refuses a callback without the login cookie", async () => {
    const name = labName("cookie");
    const env = tenantEnv(name);
    const attempt = await begin(env);
    const bare = new Jar();
    await expectRefused(env, await callback(env, { ...attempt, jar: bare }), bare, 400, /no sign-in is under way/);
  });

  it("refuses an ID token without the required claims", async () => {
    const name = labName("hd");
    const env = tenantEnv(name, { requiredClaims: { hd: "acme.com" } });
    await scriptIssuer(name, { claims: { hd: "other.example" } });
    const attempt = await begin(env);
    await expectRefused(env, await callback(env, attempt), attempt.jar, 403, /claim_mismatch: .*"hd"/);
  });

  it("refuses a person no role includes (no_role)", async () => {
    const name = labName("role");
    const env = tenantEnv(name, {}, { roles: { admins: { groups: ["admins"], scopes: ["admin"] } } });
    await scriptIssuer(name, { sub: "dave", userinfo: { sub: "dave", groups: ["staff"] } });
    const attempt = await begin(env);
    await expectRefused(env, await callback(env, attempt), attempt.jar, 403, /no_role: .*"dave"/);
  });

  it("answers the provider's words as plain text, never as a page's markup", async () => {
    const name = labName("html");
    const env = tenantEnv(name);
    const attempt = await begin(env);
    const back = new URL(attempt.back);
    back.searchParams.delete("code");
    back.searchParams.set("error", "access_denied");
    back.searchParams.set("error_description", "<script>alert(1)</script>");
    const result = await callback(env, attempt, back.href);
    await expectRefused(env, result, attempt.jar, 403, /<script>alert\(1\)<\/script>/);
    expect(result.res.headers.get("x-content-type-options")).toBe("nosniff");
  });
});
