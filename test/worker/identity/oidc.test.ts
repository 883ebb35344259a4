import { describe, expect, it } from "vitest";
import { BASE, json, request } from "../helpers/requests";
import {
  demoOidc,
  idp,
  idpSecretEnv,
  Jar,
  sessionHeaders,
  signIn,
  throughProvider,
  toToolgate,
} from "../helpers/sign-in";

/**
 * The console's sign-in with a real OpenID provider (oidc-provider, scripts/idp/demo-idp.ts), driven
 * by HTTP: the login URL, the provider's forms, the callback, the session cookie and what it may do,
 * and logout. Name, email and groups come from the provider's userinfo (its ID token holds only sub).
 */

/** SHA-256 of "dev-admin-key". */
const ADMIN_KEY_HASH = "df76ff796f70d2c9cb055ea6280553caa27eda26b70e01082c160de75a05a4a9";
const HTTPS_ORIGIN = "https://people.acme.test";

const ENV = {
  TOOLGATE_CONFIG: JSON.stringify({
    name: "people",
    tools: ["add", "echo"],
    hosts: ["people.acme.test"],
    keys: [{ name: "admin", hash: ADMIN_KEY_HASH, scopes: ["admin"] }],
    identity: {
      oidc: demoOidc(),
      roles: { admins: { groups: ["admins"], scopes: ["admin"] }, everyone: { groups: ["*"], tools: ["add"] } },
    },
  }),
  ...idpSecretEnv(),
};

/** The Set-Cookie line of cookie `name`. */
function cookieLine(response: Response, name: string): string {
  const line = response.headers.getSetCookie().find((entry) => entry.startsWith(`${name}=`));
  if (!line) throw new Error(`no Set-Cookie for ${name}: ${response.headers.getSetCookie().join(" | ")}`);
  return line;
}

async function whoami(jar: Jar, origin = BASE) {
  return toToolgate(`${origin}/v1/whoami`, ENV, new Jar(), { headers: sessionHeaders(jar, origin) });
}

describe("console sign-in with the tenant's OpenID provider", () => {
  it("names the provider's button at /auth/methods", async () => {
    const res = await request("/auth/methods", { key: null, env: ENV });
    expect(await json(res)).toEqual({ oidc: { name: "Demo IdP" }, access: false });
    const none = await request("/auth/methods", { key: null });
    expect(await json(none)).toEqual({ oidc: null, access: false });
  });

  it("sends the browser to the provider with PKCE (S256), state, nonce, the scopes and its callback", async () => {
    const res = await request(`/auth/login?return=${encodeURIComponent("#/history")}`, { key: null, env: ENV });
    expect(res.status).toBe(302);
    const to = new URL(res.headers.get("location")!);
    expect(to.origin).toBe(idp.url);
    const params = Object.fromEntries(to.searchParams);
    expect(params).toMatchObject({
      response_type: "code",
      client_id: idp.clientId,
      redirect_uri: `${BASE}/auth/callback`,
      scope: "openid email profile groups",
      code_challenge_method: "S256",
    });
    expect(params.code_challenge).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(params.state).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    expect(params.nonce).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    // The login cookie: the sign-in's random id only, Lax (it comes back on the provider's redirect).
    const line = cookieLine(res, "tg_login");
    expect(line).toMatch(/^tg_login=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Lax; Max-Age=600$/);
    expect(line).not.toContain(params.state!);
  });

  it("refuses a return that is not one of the console's routes", async () => {
    for (const back of ["https://evil.example/", "//evil.example", "#/a b", "/v1/keys"]) {
      const res = await request(`/auth/login?return=${encodeURIComponent(back)}`, { key: null, env: ENV });
      expect(res.status).toBe(400);
      expect(res.headers.get("content-type")).toMatch(/^text\/plain/);
      expect(res.headers.getSetCookie()).toEqual([]);
    }
  });

  it("signs alice in: a Strict, HttpOnly session cookie, back to the route, admin through her group", async () => {
    const { jar, callback } = await signIn("alice", ENV, { returnTo: "#/history" });
    expect(callback.status).toBe(302);
    expect(callback.headers.get("location")).toBe("/#/history");
    const line = cookieLine(callback, "tg_session");
    expect(line).toMatch(
      /^tg_session=v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Strict; Max-Age=28800$/,
    );
    expect(cookieLine(callback, "tg_login")).toContain("Max-Age=0");
    // A hint the console's script may read (no credential): someone is signed in here.
    expect(cookieLine(callback, "tg_signed_in")).toBe("tg_signed_in=1; Path=/; SameSite=Strict; Max-Age=28800");
    expect(jar.cookies.has("tg_login")).toBe(false);
    const me = await json(await whoami(jar));
    expect(me.tenant).toBe("people");
    expect(me.key.name).toMatch(/^session:u_[A-Za-z0-9_-]{32}$/);
    expect(me.key.scopes.sort()).toEqual(["admin", "call"]);
    expect(me.user).toEqual({
      id: "alice",
      name: "Alice Admin",
      email: "alice@example.test",
      source: "oidc",
      roles: ["admins", "everyone"],
    });
    expect((await request("/v1/tenant", { key: null, headers: sessionHeaders(jar), env: ENV })).status).toBe(200);
  });

  it("signs bob in with call only: no admin routes, only his role's tools", async () => {
    const { jar } = await signIn("bob", ENV);
    const me = await json(await whoami(jar));
    expect(me.key.scopes).toEqual(["call"]);
    expect(me.user).toMatchObject({ id: "bob", name: "Bob Builder", roles: ["everyone"] });
    const admin = await request("/v1/tenant", { key: null, headers: sessionHeaders(jar), env: ENV });
    expect(admin.status).toBe(403);
    const tools = await json(await request("/v1/tools/openai", { key: null, headers: sessionHeaders(jar), env: ENV }));
    expect(tools.tools.map((tool: { function: { name: string } }) => tool.function.name)).toEqual(["add"]);
  });

  it("uses __Host- names and Secure on an https host", async () => {
    const { jar, callback } = await signIn("bob", ENV, { origin: HTTPS_ORIGIN });
    expect(callback.status).toBe(302);
    const line = cookieLine(callback, "__Host-tg_session");
    expect(line).toMatch(/; Path=\/; HttpOnly; SameSite=Strict; Max-Age=28800; Secure$/);
    expect((await json(await whoami(jar, HTTPS_ORIGIN))).user.id).toBe("bob");
    // The plain name is not read on https (a cookie an http page could have planted).
    const planted = new Jar();
    planted.cookies.set("tg_session", jar.cookies.get("__Host-tg_session")!);
    const refused = await whoami(planted, HTTPS_ORIGIN);
    expect(refused.status).toBe(401);
    expect((await json(refused)).error.code).toBe("invalid_session");
  });

  it("signs out: the session is revoked, its cookie cleared, the old cookie refused", async () => {
    const { jar } = await signIn("bob", ENV);
    const old = jar.cookies.get("tg_session")!;
    expect((await whoami(jar)).status).toBe(200);
    const out = await toToolgate("/auth/logout", ENV, jar, { method: "POST", headers: sessionHeaders(jar) });
    expect(out.status).toBe(204);
    expect(cookieLine(out, "tg_session")).toContain("Max-Age=0");
    expect(cookieLine(out, "tg_signed_in")).toContain("Max-Age=0");
    const replayed = new Jar();
    replayed.cookies.set("tg_session", old);
    const res = await whoami(replayed);
    expect(res.status).toBe(401);
    expect((await json(res)).error.code).toBe("invalid_session");
  });

  it("refuses a login the provider does not know: no callback, no session", async () => {
    const jar = new Jar();
    const started = await toToolgate("/auth/login", ENV, jar);
    await expect(throughProvider(started.headers.get("location")!, "mallory")).rejects.toThrow(/provider/);
    expect(jar.cookies.has("tg_session")).toBe(false);
  });
});
