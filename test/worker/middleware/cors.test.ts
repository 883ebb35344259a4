import { describe, expect, it } from "vitest";
import type { AppEnv } from "../../../worker/env";
import { Hono } from "../../../worker/hono-lazy";
import { cors } from "../../../worker/middleware/cors";
import { request } from "../helpers/requests";

const CONSOLE = "http://localhost:5173"; // one of the demo tenant's console origins

function preflight(origin: string, headers = "authorization, content-type") {
  return request("/v1/calls/openai", {
    method: "OPTIONS",
    key: null,
    headers: { origin, "access-control-request-method": "POST", "access-control-request-headers": headers },
  });
}

describe("CORS", () => {
  it("answers a preflight from a console origin without a key", async () => {
    const res = await preflight(CONSOLE);
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe(CONSOLE);
    expect(res.headers.get("access-control-allow-methods")).toContain("POST");
    expect(res.headers.get("access-control-allow-headers")?.toLowerCase()).toContain("authorization");
  });

  it("lets a console origin name the user a key acts for, never send an ambient session", async () => {
    const res = await preflight(CONSOLE, "authorization, toolgate-user, toolgate-user-token");
    expect(res.status).toBe(204);
    const allowed = (res.headers.get("access-control-allow-headers") ?? "").toLowerCase().split(/, */);
    expect(allowed).toEqual(expect.arrayContaining(["toolgate-user", "toolgate-user-token"]));
    expect(allowed).not.toContain("toolgate-session");
  });

  it("does not allow another origin", async () => {
    const res = await preflight("https://evil.example");
    expect(res.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("marks real responses for the console origin only", async () => {
    const allowed = await request("/v1/whoami", { headers: { origin: CONSOLE } });
    expect(allowed.status).toBe(200);
    expect(allowed.headers.get("access-control-allow-origin")).toBe(CONSOLE);
    expect(allowed.headers.get("access-control-expose-headers")).toContain("X-Request-Id");
    const other = await request("/v1/whoami", { headers: { origin: "https://evil.example" } });
    expect(other.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("answers a request without an Origin with no CORS headers, only Vary: Origin", async () => {
    const res = await request("/v1/whoami");
    expect(res.status).toBe(200);
    expect(res.headers.get("vary")).toBe("Origin");
    expect([...res.headers.keys()].filter((name) => name.startsWith("access-control-"))).toEqual([]);
    const withOrigin = await request("/v1/whoami", { headers: { origin: CONSOLE } });
    expect(withOrigin.headers.get("vary")).toBe("Origin");
  });

  it("marks every answer to a request without an Origin Vary: Origin, a route's own Response too", async () => {
    const app = new Hono<AppEnv>()
      .use(cors)
      .get("/json", (c) => c.json({ ok: true }))
      .get("/own", () => new Response("own", { headers: { vary: "Accept" } }));
    for (const path of ["/json", "/own"]) {
      const res = await app.request(path);
      expect({ path, vary: res.headers.get("vary")?.split(/, */).sort() }).toEqual({
        path,
        vary: path === "/own" ? ["Accept", "Origin"] : ["Origin"],
      });
    }
  });

  it("marks error responses too, so a console can read them", async () => {
    const res = await request("/v1/whoami", { key: "wrong", headers: { origin: CONSOLE } });
    expect(res.status).toBe(401);
    expect(res.headers.get("access-control-allow-origin")).toBe(CONSOLE);
  });
});
