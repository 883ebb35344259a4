import { env } from "cloudflare:workers";
import { createExecutionContext } from "cloudflare:test";
import { Hono } from "hono";
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { defineTool } from "../../src";
import { createToolgate } from "../../worker/kit";
import { BASE, CALL_KEY, CALL_KEY_HASH, json } from "./helpers/requests";

/**
 * The Worker kit (`toolgate/worker`) as a project uses it: its own tools and bundled tenant, at the
 * origin's root or under a path of an existing Worker or Hono app.
 */

const double = defineTool({
  name: "double",
  description: "Twice a number.",
  input: v.object({ n: v.number() }),
  output: v.object({ twice: v.number() }),
  run: ({ n }) => ({ twice: 2 * n }),
});
const config = { name: "kit", tools: ["*"], keys: [{ name: "k", hash: CALL_KEY_HASH, scopes: ["call"] }] };
const tenant = { config, source: "tenants/kit.json" };
// No var of the test Worker may stand in for the bundled configuration.
const bindings = { ...env, TOOLGATE_CONFIG: undefined, TOOLGATE_DEMO: "false" };

const callDouble = (path: string, id: string) =>
  new Request(`${BASE}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${CALL_KEY}`, "content-type": "application/json" },
    body: JSON.stringify([{ id, type: "function", function: { name: "double", arguments: '{"n":21}' } }]),
  });

describe("createToolgate", () => {
  it("serves the project's tools to its bundled tenant", async () => {
    const toolgate = createToolgate({ tools: [double], tenant });
    const res = await toolgate.fetch(
      callDouble("/v1/calls/openai", `kit-${crypto.randomUUID()}`),
      bindings,
      createExecutionContext(),
    );
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body.messages[0].content).toBe('{"twice":42}');
    expect(body.calls[0].tenant).toBe("kit");
  });

  it("names the tenant's source when its configuration is wrong", async () => {
    const toolgate = createToolgate({
      tools: [double],
      tenant: { config: { ...config, tools: ["add"] }, source: "tenants/bad.json" },
    });
    const res = await toolgate.fetch(callDouble("/v1/calls/openai", "kit-bad"), bindings, createExecutionContext());
    expect(res.status).toBe(500);
    expect((await json(res)).error.message).toMatch(/^tenants\/bad\.json is invalid: tools\[0\]: unknown tool "add"/);
  });

  it("serves under a base path of an existing Worker, and nothing outside it", async () => {
    const toolgate = createToolgate({ tools: [double], tenant, basePath: "/tools/" });
    const ctx = createExecutionContext();
    expect(toolgate.handles(new Request(`${BASE}/tools/v1/calls`))).toBe(true);
    expect(toolgate.handles(new Request(`${BASE}/tools`))).toBe(true);
    expect(toolgate.handles(new Request(`${BASE}/toolsmith`))).toBe(false);
    expect(toolgate.handles(new Request(`${BASE}/v1/calls`))).toBe(false);
    const health = await toolgate.fetch(new Request(`${BASE}/tools/healthz`), bindings, ctx);
    expect(await json(health)).toMatchObject({ ok: true });
    const res = await toolgate.fetch(callDouble("/tools/v1/calls/openai", `kit-${crypto.randomUUID()}`), bindings, ctx);
    expect((await json(res)).messages[0].content).toBe('{"twice":42}');
    const outside = await toolgate.fetch(new Request(`${BASE}/healthz`), bindings, ctx);
    expect(outside.status).toBe(404);
    expect((await json(outside)).error.code).toBe("not_found");
  });

  it("mounts under a path of a Hono app", async () => {
    const toolgate = createToolgate({ tools: [double], tenant });
    const host = new Hono<{ Bindings: typeof bindings }>();
    host.get("/", (c) => c.text("the host app"));
    host.mount("/tools", toolgate.fetch);
    const ctx = createExecutionContext();
    expect(await (await host.fetch(new Request(`${BASE}/`), bindings, ctx)).text()).toBe("the host app");
    const res = await host.fetch(callDouble("/tools/v1/calls/openai", `kit-${crypto.randomUUID()}`), bindings, ctx);
    expect((await json(res)).messages[0].content).toBe('{"twice":42}');
  });

  it("refuses two tools of one name and a base path that is not a path", () => {
    expect(() => createToolgate({ tools: [double, double] })).toThrow('tools: two tools are named "double"');
    expect(() => createToolgate({ tools: [double], basePath: "/a b" })).toThrow(/basePath "\/a b" must be a path/);
  });
});
