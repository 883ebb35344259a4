import { beforeAll, describe, expect, it } from "vitest";
import { BASE, json, request } from "../helpers/requests";
import { demoOidc, idpSecretEnv, Jar, sessionHeaders, signIn, toToolgate } from "../helpers/sign-in";

/**
 * A session cookie counts only when the console's own page sends it: with Toolgate-Session: 1 (a
 * header CORS never allows, so no other origin's page can send it), a Sec-Fetch-Site of same-origin
 * (or none), and on unsafe methods this origin's Origin. Every refusal runs nothing and records nothing.
 */

/** SHA-256 of "dev-admin-key". */
const ADMIN_KEY_HASH = "df76ff796f70d2c9cb055ea6280553caa27eda26b70e01082c160de75a05a4a9";
const ADMIN_KEY = "dev-admin-key";
const CONSOLE = "https://console.acme.test";

const ENV = {
  TOOLGATE_CONFIG: JSON.stringify({
    name: "csrf-people",
    tools: ["add"],
    consoleOrigins: [CONSOLE],
    keys: [{ name: "admin", hash: ADMIN_KEY_HASH, scopes: ["admin"] }],
    identity: { oidc: demoOidc() },
  }),
  ...idpSecretEnv(),
};

let jar: Jar;
beforeAll(async () => {
  jar = (await signIn("bob", ENV)).jar;
});

const uid = () => `csrf-${crypto.randomUUID().slice(0, 8)}`;
const openai = (id: string) => [{ id, type: "function", function: { name: "add", arguments: '{"a":1,"b":2}' } }];

/** POST /v1/calls/openai with `headers` (the session's cookie among them); answers it and the call id. */
async function call(headers: Record<string, string>) {
  const id = uid();
  const res = await toToolgate("/v1/calls/openai", ENV, new Jar(), {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(openai(id)),
  });
  return { res, id };
}

async function recorded(id: string): Promise<boolean> {
  return (await request(`/v1/calls/${id}`, { key: ADMIN_KEY, env: ENV })).status === 200;
}

async function expectError(res: Response, status: number, code: string) {
  expect(res.status).toBe(status);
  expect((await json(res)).error.code).toBe(code);
}

describe("CSRF: when a session cookie counts", () => {
  it("counts from the console's own page: a call runs and is recorded", async () => {
    const { res, id } = await call(sessionHeaders(jar));
    expect(res.status).toBe(200);
    expect((await json(res)).calls[0].status).toBe("succeeded");
    expect(await recorded(id)).toBe(true);
  });

  it("ignores the cookie without Toolgate-Session: 401 missing_key, nothing runs", async () => {
    const { "toolgate-session": _, ...headers } = sessionHeaders(jar);
    const { res, id } = await call(headers);
    await expectError(res, 401, "missing_key");
    expect(await recorded(id)).toBe(false);
  });

  it.each(["cross-site", "same-site", "none"])("refuses Sec-Fetch-Site: %s with 403 cross_site", async (site) => {
    const { res, id } = await call({ ...sessionHeaders(jar), "sec-fetch-site": site });
    await expectError(res, 403, "cross_site");
    expect(await recorded(id)).toBe(false);
  });

  it("refuses a POST from another Origin, or with none", async () => {
    const foreign = await call({ ...sessionHeaders(jar), origin: "https://evil.example" });
    await expectError(foreign.res, 403, "cross_site");
    const { origin: _, ...headers } = sessionHeaders(jar);
    const bare = await call(headers);
    await expectError(bare.res, 403, "cross_site");
    expect(await recorded(foreign.id)).toBe(false);
    expect(await recorded(bare.id)).toBe(false);
  });

  it("refuses a missing or forged cookie with 401 invalid_session", async () => {
    const missing = await call({ ...sessionHeaders(jar), cookie: "" });
    await expectError(missing.res, 401, "invalid_session");
    const value = jar.cookies.get("tg_session")!;
    const forged = `${value.slice(0, -4)}AAAA`;
    const bad = await call({ ...sessionHeaders(jar), cookie: `tg_session=${forged}` });
    await expectError(bad.res, 401, "invalid_session");
    expect(await recorded(missing.id)).toBe(false);
    expect(await recorded(bad.id)).toBe(false);
  });

  it("never lets another origin's preflight send Toolgate-Session", async () => {
    const res = await request("/v1/calls/openai", {
      method: "OPTIONS",
      key: null,
      env: ENV,
      headers: {
        origin: CONSOLE,
        "access-control-request-method": "POST",
        "access-control-request-headers": "toolgate-session, content-type",
      },
    });
    const allowed = (res.headers.get("access-control-allow-headers") ?? "").toLowerCase();
    expect(allowed).toContain("authorization");
    expect(allowed).not.toContain("toolgate-session");
  });

  it("never counts a session on /mcp", async () => {
    const res = await toToolgate(`${BASE}/mcp`, ENV, new Jar(), {
      method: "POST",
      headers: {
        ...sessionHeaders(jar),
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(res.status).toBe(401);
  });

  it("refuses a person sending Toolgate-User: a person acts for no one else", async () => {
    const { res, id } = await call({ ...sessionHeaders(jar), "toolgate-user": "alice" });
    await expectError(res, 403, "act_as_forbidden");
    expect(await recorded(id)).toBe(false);
  });
});
