import { describe, expect, it } from "vitest";
import { identityLibrary, type VerifyJwtOptions } from "../../../worker/identity-library";
import { jwtRefusal } from "../../../worker/identity/lazy/refused";
import {
  claims,
  issuerUrl,
  jwksFetches,
  jwksUri,
  labName,
  rotateKeys,
  scriptIssuer,
  serveKeys,
  signToken,
  tokenLab,
} from "../helpers/token-lab";

/**
 * verifyJwt, through the library module the Worker loads on first use (worker/identity-library.ts),
 * against real key sets and tokens of the token lab on 127.0.0.1: every refusal has its reason, key
 * rotation is followed with one fetch, and made-up key ids cannot make toolgate fetch more.
 */

const AUDIENCE = "toolgate-test";
const SECOND = 1000;

function setup(label: string) {
  const set = labName(label);
  const issuer = `https://issuer.test/${set}`;
  const options: VerifyJwtOptions = {
    jwksUri: jwksUri(set),
    issuer,
    audience: AUDIENCE,
    algorithms: ["RS256", "ES256"],
  };
  const verify = async (token: string, more: Partial<VerifyJwtOptions> = {}) =>
    (await identityLibrary()).verifyJwt(token, { ...options, ...more });
  const sign = (more: Record<string, unknown> = {}, signOptions = {}) =>
    signToken(set, claims(issuer, AUDIENCE, more), signOptions);
  return { set, issuer, verify, sign };
}

const reason = (result: { ok: boolean; reason?: string }) => (result.ok ? "ok" : result.reason);

describe("verifyJwt", () => {
  it("accepts a token signed by a key of the issuer's set, with its claims and header", async () => {
    const { set, verify, sign, issuer } = setup("valid");
    const result = await verify(await sign({ email: "alice@example.test" }));
    expect(result).toMatchObject({
      ok: true,
      claims: { iss: issuer, aud: AUDIENCE, sub: "alice", email: "alice@example.test" },
      header: { alg: "RS256", kid: expect.any(String) },
    });
    // ES256 too, and a token whose aud is a list holding the audience.
    await rotateKeys(set, { alg: "ES256" });
    expect(reason(await verify(await sign({ aud: ["other", AUDIENCE] }), { now: Date.now() + 31 * SECOND }))).toBe(
      "ok",
    );
  });

  it("refuses each bad token with its reason", async () => {
    const { set, verify, sign } = setup("refusals");
    const now = Math.floor(Date.now() / 1000);
    const cases: [string, Promise<string>, string][] = [
      ["forged", sign({}, { key: "forged" }), "bad_signature"],
      ["expired", sign({ iat: now - 600, exp: now - 60 }), "expired"],
      ["not before", sign({ nbf: now + 300 }), "not_yet_valid"],
      ["issued in the future", sign({ iat: now + 300, exp: now + 600 }), "not_yet_valid"],
      ["wrong issuer", sign({ iss: "https://evil.test" }), "wrong_issuer"],
      ["wrong audience", sign({ aud: "someone-else" }), "wrong_audience"],
      ["alg none", sign({}, { mode: "none" }), "algorithm_not_allowed"],
      ["HS256 keyed with the public key", sign({}, { mode: "hs256-public" }), "algorithm_not_allowed"],
      ["no iat", sign({ iat: undefined }), "missing_claim"],
      ["not a JWT", Promise.resolve("not.a.jwt"), "malformed"],
    ];
    for (const [label, token, expected] of cases) {
      const result = await verify(await token);
      expect(result.ok, label).toBe(false);
      expect(reason(result), label).toBe(expected);
    }
    // A lifetime over the bound.
    expect(reason(await verify(await sign({ exp: now + 7200 }), { maxLifetimeSeconds: 3600 }))).toBe(
      "lifetime_too_long",
    );
    // An algorithm the issuer's key supports but the allow-list leaves out.
    await rotateKeys(set, { alg: "ES256", keep: true });
    expect(reason(await verify(await sign(), { algorithms: ["RS256"], now: Date.now() + 31 * SECOND }))).toBe(
      "algorithm_not_allowed",
    );
  });

  it("tries each key of the set for a token without kid, and refuses it when none verifies", async () => {
    const { set, verify, sign } = setup("no-kid");
    await rotateKeys(set, { keep: true });
    // Two RS256 keys published; the token was signed by the second and names neither.
    expect(reason(await verify(await sign({}, { header: { kid: null } })))).toBe("ok");
    expect(reason(await verify(await sign({}, { header: { kid: null }, key: "forged" })))).toBe("bad_signature");
  });

  it("refuses a token over 16 KiB before fetching or parsing anything", async () => {
    const { set, verify, sign } = setup("large");
    const result = await verify(await sign({ padding: "x".repeat(17 * 1024) }));
    expect(result).toEqual({ ok: false, reason: "too_large", detail: expect.any(String) });
    expect(await jwksFetches(set)).toBe(0);
  });

  it("follows a key rotation with one fetch, and fetches at most once per cooldown for unknown key ids", async () => {
    const { set, verify, sign } = setup("rotation");
    const t0 = Date.now();
    expect(reason(await verify(await sign(), { now: t0 }))).toBe("ok");
    expect(await jwksFetches(set)).toBe(1);
    // A second token of the same key: the set kept, no fetch.
    expect(reason(await verify(await sign(), { now: t0 + SECOND }))).toBe("ok");
    expect(await jwksFetches(set)).toBe(1);
    // The issuer rotates; within the cooldown a token of the new key is not a reason to fetch again.
    await rotateKeys(set);
    const rotated = await sign();
    expect(reason(await verify(rotated, { now: t0 + 10 * SECOND }))).toBe("unknown_key");
    expect(await jwksFetches(set)).toBe(1);
    // Past the cooldown it is: one fetch, and the new key verifies.
    expect(reason(await verify(rotated, { now: t0 + 31 * SECOND }))).toBe("ok");
    expect(await jwksFetches(set)).toBe(2);
    // Made-up key ids right after: refused with no fetch, however many.
    for (let i = 0; i < 5; i++) {
      const madeUp = await sign({}, { header: { kid: `made-up-${i}` } });
      expect(reason(await verify(madeUp, { now: t0 + 32 * SECOND + i }))).toBe("unknown_key");
    }
    expect(await jwksFetches(set)).toBe(2);
  });

  it("answers keys_unavailable (503 through jwtRefusal) when the key set cannot be had, for any reason", async () => {
    for (const mode of ["down", "not-json", "huge", "redirect"] as const) {
      const { set, verify, sign } = setup(`unavailable-${mode}`);
      await serveKeys(set, mode);
      const result = await verify(await sign());
      expect(result.ok, mode).toBe(false);
      if (result.ok) continue;
      expect(result.reason, mode).toBe("keys_unavailable");
      expect(result.detail, mode).toContain(jwksUri(set));
      const { refusal } = jwtRefusal(result, "invalid_user_token", "The user token");
      expect([refusal.status, refusal.code], mode).toEqual([503, "keys_unavailable"]);
    }
    // Any other failure is the token's: 401 with the code given.
    const { verify, sign } = setup("unavailable-contrast");
    const expired = await verify(await sign({ iat: 1, exp: 2 }));
    if (expired.ok) throw new Error("expected a refusal");
    const { refusal } = jwtRefusal(expired, "invalid_user_token", "The user token");
    expect([refusal.status, refusal.code, refusal.message]).toEqual([
      401,
      "invalid_user_token",
      "The user token is refused (expired): it has expired.",
    ]);
  });

  it("keeps using a key set while its issuer is briefly down, up to an hour old", async () => {
    const { set, verify, sign } = setup("stale");
    const t0 = Date.now();
    const token = await sign({ exp: Math.floor(t0 / 1000) + 7200 }, {});
    expect(reason(await verify(token, { now: t0 }))).toBe("ok");
    await serveKeys(set, "down");
    // Past the 10-minute freshness the set is fetched again; the fetch fails, the set kept serves.
    expect(reason(await verify(token, { now: t0 + 11 * 60 * SECOND }))).toBe("ok");
    expect(await jwksFetches(set)).toBe(2);
    // Within the cooldown no other fetch is tried.
    expect(reason(await verify(token, { now: t0 + 11 * 60 * SECOND + 5 * SECOND }))).toBe("ok");
    expect(await jwksFetches(set)).toBe(2);
    // Past an hour the set is too old to trust: the issuer's keys are unavailable.
    expect(reason(await verify(token, { now: t0 + 61 * 60 * SECOND }))).toBe("keys_unavailable");
  });
});

describe("discover", () => {
  it("reads a provider's metadata through oauth4webapi, and an ID token of its verifies against its keys", async () => {
    const name = labName("provider");
    await scriptIssuer(name, { sub: "bob", claims: { email: "bob@example.test" } });
    const library = await identityLibrary();
    const found = await library.discover(issuerUrl(name));
    if (!found.ok) throw new Error(found.detail);
    const { metadata } = found;
    expect(metadata).toMatchObject({
      issuer: issuerUrl(name),
      jwks_uri: jwksUri(name),
      token_endpoint: `${issuerUrl(name)}/token`,
    });
    // The provider's authorize endpoint sends the browser back with a code; its token endpoint answers an ID token.
    const authorize = new URL(metadata.authorization_endpoint!);
    const redirect = "http://127.0.0.1:8787/auth/callback";
    const query = { client_id: AUDIENCE, redirect_uri: redirect, response_type: "code", state: "s1", nonce: "n1" };
    for (const [key, value] of Object.entries(query)) authorize.searchParams.set(key, value);
    const back = new URL((await fetch(authorize, { redirect: "manual" })).headers.get("location")!);
    expect([back.origin + back.pathname, back.searchParams.get("state"), back.searchParams.get("iss")]).toEqual([
      redirect,
      "s1",
      issuerUrl(name),
    ]);
    const form = new URLSearchParams({ grant_type: "authorization_code", code: back.searchParams.get("code")! });
    const answer = (await (await fetch(metadata.token_endpoint!, { method: "POST", body: form })).json()) as {
      id_token: string;
    };
    const verified = await library.verifyJwt(answer.id_token, {
      jwksUri: metadata.jwks_uri!,
      issuer: metadata.issuer,
      audience: AUDIENCE,
      algorithms: ["RS256"],
    });
    expect(verified).toMatchObject({ ok: true, claims: { sub: "bob", nonce: "n1", email: "bob@example.test" } });
  });

  it("refuses metadata naming another issuer, and a provider that cannot be reached", async () => {
    const library = await identityLibrary();
    const name = labName("provider-elsewhere");
    // Configured with a trailing slash, the provider names itself without one: not the same issuer.
    const other = await library.discover(`${issuerUrl(name)}/`);
    expect(other).toEqual({ ok: false, reason: "discovery_failed", detail: expect.stringMatching(/issuer/) });
    const missing = await library.discover(`${tokenLab}/nowhere`);
    expect(missing).toMatchObject({ ok: false, reason: "discovery_failed" });
  });
});
