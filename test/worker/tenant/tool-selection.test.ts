import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { executeCall } from "../../../src/pipeline/execute";
import { defineTool } from "../../../src/tool";
import { CATALOG, catalogFromFiles, createCatalog } from "../../../worker/tenant/catalog";
import { ConfigError } from "../../../worker/errors";
import { createTenant } from "../../../worker/tenant/tenant";
import { upstreams } from "../helpers/adapters";

const base = { name: "acme", keys: [{ name: "ops", hash: "a".repeat(64), scopes: ["admin"] }] };
const names = (tools: readonly string[], catalog = CATALOG) =>
  createTenant({ ...base, tools }, undefined, "test", catalog)
    .registry.list()
    .map((tool) => tool.name);

function configError(config: Record<string, unknown>, catalog = CATALOG): string {
  try {
    createTenant({ ...base, ...config }, undefined, "TOOLGATE_CONFIG", catalog);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error("expected a ConfigError");
}

// A code tool that reads a secret and fetches the test API: what it needs, it declares.
const api = upstreams.httpApi;
const fetchEcho = (name: string, needs?: { secrets?: string[]; egress?: string[] }) =>
  defineTool({
    name,
    description: "GET the test API's /echo with the API_KEY secret",
    input: v.object({}),
    tags: ["net"],
    ...(needs ? { needs } : {}),
    async run(_args, ctx) {
      const res = await ctx.fetch(`${api}/echo/${name}`, {
        headers: { "x-key": ctx.secrets.API_KEY ?? "" },
        signal: ctx.signal,
      });
      return (await res.json()) as { path: string };
    },
  });
const declared = fetchEcho("declared", { secrets: ["API_KEY"], egress: [api] });
const undeclared = fetchEcho("undeclared");
const NET = createCatalog([...CATALOG.values()], [declared, undeclared]);

// Derived from the catalogue, so a tool added to tools/ (npm run tool:add) changes no expectation here.
const TOOLS = [...CATALOG.values()];
const tagged = (tag: string) => TOOLS.filter((tool) => tool.tags?.includes(tag)).map((tool) => tool.name);
const TAGS = [...new Set(TOOLS.flatMap((tool) => tool.tags ?? []))].sort();

describe("a tenant's tools: names, tags and *", () => {
  it("offers each tool once, in the order first named; a tag or * in catalogue (file-name) order", () => {
    expect(names(["echo", "tag:gates", "add", "sleep"])).toEqual([
      "echo",
      ...tagged("gates").filter((name) => name !== "echo"),
      "add",
    ]);
    expect(tagged("gates")).toEqual(expect.arrayContaining(["sleep", "sleep_pool"]));
    expect(names(["*"])).toEqual([...CATALOG.keys()]);
    expect(names(["tag:demo"])).toEqual(tagged("demo"));
    expect(tagged("demo")).toEqual(expect.arrayContaining(["add", "echo", "sleep", "slow_report"]));
  });

  it("names an unknown tool, an unknown tag and a malformed entry", () => {
    expect(configError({ tools: ["add", "tag:nope"] })).toBe(
      `TOOLGATE_CONFIG is invalid: tools[1]: no tool has the tag "nope" (tags: ${TAGS.join(", ")})`,
    );
    expect(configError({ tools: ["teleport"] })).toBe(
      `TOOLGATE_CONFIG is invalid: tools[0]: unknown tool "teleport" (known: ${[...CATALOG.keys()].join(", ")})`,
    );
    expect(configError({ tools: ["tag:"] })).toMatch(/tools\[0\]: must be a tool name, "tag:<tag>" or "\*"/);
    expect(configError({ tools: ["tag:Math"] })).toMatch(/tools\[0\]: must be a tool name, "tag:<tag>" or "\*"/);
  });

  it("checks a file's tool against its name", () => {
    expect(() => catalogFromFiles([["sum", CATALOG.get("add")!]])).toThrow(
      'tools/sum.ts default-exports the tool "add": a tool file is named after its tool',
    );
    expect(() => catalogFromFiles([["sum", undefined as never]])).toThrow(
      /tools\/sum\.ts default-exports no tool \(export default defineTool/,
    );
  });
});

describe("what a code tool needs", () => {
  const netConfig = { secrets: { API_KEY: "TEST_API_KEY" }, egress: { allowHttpHosts: ["127.0.0.1"] } };

  it("names the tool and the secret it needs when the tenant does not map it", () => {
    expect(configError({ tools: ["add", "declared"], egress: netConfig.egress }, NET)).toBe(
      'TOOLGATE_CONFIG is invalid: tools[1]: the tool "declared" needs the secret "API_KEY": ' +
        'map it in "secrets" ("API_KEY": "<Worker secret name>")',
    );
    expect(configError({ tools: ["tag:net"], egress: netConfig.egress }, NET)).toMatch(
      /^TOOLGATE_CONFIG is invalid: tools\[0\] \("tag:net"\): the tool "declared" needs the secret "API_KEY"/,
    );
  });

  it("refuses plain http egress a tool needs unless the tenant allows the loopback host", () => {
    expect(configError({ tools: ["declared"], secrets: netConfig.secrets }, NET)).toMatch(
      new RegExp(
        `tools\\[0\\]: the tool "declared" needs egress to "${api}": ` +
          `http is not allowed for 127\\.0\\.0\\.1 .*egress\\.allowHttpHosts \\(loopback only\\)$`,
      ),
    );
  });

  it("adds the origins a tool needs to the tenant's allow-list, so its fetch reaches them", async () => {
    const call = async (tools: string[], name: string) => {
      const tenant = createTenant({ ...base, tools, ...netConfig }, undefined, "test", NET);
      expect(tenant.adapters.egress.allowHosts.includes(api)).toBe(tools.includes("declared"));
      return executeCall(
        { id: `c-${name}`, name, arguments: {} },
        { registry: tenant.registry, fetch: tenant.adapters.fetch, secrets: { API_KEY: "k-1" } },
      );
    };
    const reached = await call(["declared"], "declared");
    expect(reached.ok && reached.output.structured).toMatchObject({ path: "/echo/declared" });
    const refused = await call(["undeclared"], "undeclared");
    expect(!refused.ok && refused.error).toMatchObject({
      code: "denied",
      message: expect.stringMatching(/Egress refused: origin http:\/\/127\.0\.0\.1:\d+ is not in the allow-list/),
    });
  });
});
