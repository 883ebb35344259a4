import { describe, expect, it } from "vitest";
import { ADMIN_KEY, CALL_KEY, CALL_KEY_HASH, json, request } from "../helpers/requests";

describe("keys and scopes", () => {
  it("answers /healthz without a key", async () => {
    const res = await request("/healthz", { key: null });
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({ ok: true, version: expect.stringMatching(/^\d+\.\d+\.\d+/) });
  });

  it("refuses an API route without a key: 401 with a challenge", async () => {
    const res = await request("/v1/tools/openai", { key: null });
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toMatch(/^Bearer/);
    expect(await json(res)).toEqual({ error: { code: "missing_key", message: expect.any(String) } });
  });

  it("refuses a malformed Authorization header", async () => {
    const res = await request("/v1/tools/openai", { key: null, headers: { authorization: `Basic ${btoa("a:b")}` } });
    expect(res.status).toBe(401);
    expect((await json(res)).error.code).toBe("missing_key");
  });

  it.each([
    ["a wrong key of the same length", "dev-call-kez"], // as long as dev-call-key // same length as dev-call-key,
    ["a wrong key of another length", "dev-call-key-but-longer"],
    ["a prefix of a real key", "dev-call"],
    ["a key's hash instead of the key", CALL_KEY_HASH],
  ])("refuses %s: 401", async (_label, key) => {
    const res = await request("/v1/tools/openai", { key });
    expect(res.status).toBe(401);
    expect((await json(res)).error.code).toBe("invalid_key");
  });

  it("accepts the call key and the admin key on a call-scope route", async () => {
    for (const key of [CALL_KEY, ADMIN_KEY]) {
      const res = await request("/v1/calls/nope", { key, body: {} });
      // Past auth: the route itself answers (unknown format), not 401/403.
      expect(res.status).toBe(404);
      expect((await json(res)).error.code).toBe("unknown_format");
    }
  });

  it("refuses a key without the needed scope: 403", async () => {
    const res = await request("/v1/tenant", { key: CALL_KEY });
    expect(res.status).toBe(403);
    expect(await json(res)).toEqual({ error: { code: "forbidden", message: 'This key lacks the "admin" scope.' } });
  });

  it("lets the admin key reach an admin route", async () => {
    const res = await request("/v1/tenant", { key: ADMIN_KEY });
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body.name).toBe("demo");
    expect(body.keys).toEqual([
      { name: "dev-admin", scopes: ["admin"] },
      { name: "dev-call", scopes: ["call"] },
    ]);
    expect(JSON.stringify(body)).not.toMatch(/[0-9a-f]{64}/);
  });

  it("tells a key who it is", async () => {
    expect(await json(await request("/v1/whoami"))).toEqual({
      tenant: "demo",
      key: { name: "dev-call", scopes: ["call"] },
    });
  });
});
