import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import addTool from "../../../bench/authoring/toolgate/add/add";
import { countedLines, renderTable } from "../../../bench/authoring/count";
import { executeCall } from "../../../src/pipeline/execute";
import { createCatalog } from "../../../worker/tenant/catalog";
import { createTenant } from "../../../worker/tenant/tenant";
import { startHttpApi, type HttpApi } from "../../servers/http-api";

const fragment = (tool: string) =>
  JSON.parse(readFileSync(`bench/authoring/toolgate/${tool}/tenant.fragment.json`, "utf8")) as Record<string, unknown>;

let api: HttpApi;
beforeAll(async () => {
  api = await startHttpApi();
});
afterAll(() => api.close());

describe("the authoring comparison (bench/authoring)", () => {
  it("is the table of docs/core.md, as counted now", () => {
    expect(readFileSync("docs/core.md", "utf8")).toContain(renderTable());
  });

  it("counts code lines only: no blank, comment or harness lines, no fragment braces", () => {
    expect(countedLines("bench/authoring/toolgate/add/tenant.fragment.json")).toEqual(['  "tools": ["add"]']);
    expect(countedLines("bench/authoring/mcp-sdk/add/wiring.ts")).toEqual([
      'import { registerAdd } from "./add";',
      "  registerAdd(server);",
    ]);
    expect(countedLines("bench/authoring/toolgate/add/add.ts")[0]).toBe('import * as v from "valibot";');
  });

  it("toolgate's side is a working tenant: the tool file and the fragments, merged into one configuration", async () => {
    const [add, weather, github] = ["add", "get_weather", "mcp_import"].map(fragment);
    const http = (weather!.http as Record<string, unknown>[]).map((decl) => ({
      ...decl,
      url: `${api.url}/weather`,
      query: { q: "{city}" },
    }));
    const config = {
      name: "acme",
      keys: [{ name: "admin", hash: "a".repeat(64), scopes: ["admin"] }],
      ...add,
      ...github,
      secrets: { ...(weather!.secrets as object), ...(github!.secrets as object) },
      http,
      egress: { allowHttpHosts: ["127.0.0.1"] },
    };
    const tenant = createTenant(config, undefined, "bench", createCatalog([addTool]));
    expect(tenant.registry.list().map((tool) => tool.name)).toEqual(["add", "get_weather"]);
    expect(tenant.adapters.servers.map((server) => server.declaration.name)).toEqual(["github"]);
    const run = (name: string, args: unknown) =>
      executeCall(
        { id: `c-${name}`, name, arguments: args },
        { registry: tenant.registry, fetch: tenant.adapters.fetch, secrets: { WEATHER_KEY: "k", GH_TOKEN: "t" } },
      );
    const [sum, tempC] = [await run("add", { a: 2, b: 3 }), await run("get_weather", { city: "Oslo" })];
    expect(sum.ok && sum.output.structured).toEqual({ sum: 5 });
    expect(tempC.ok && tempC.output.structured).toEqual({ tempC: 4.5 });
  });
});
