import { describe, expect, it } from "vitest";
import { httpTool } from "../../../src/adapters/http";
import { ConfigError } from "../../../worker/errors";
import { formatNamed } from "../../../worker/formats";
import { toolListing, toolListingJson } from "../../../worker/tenant/listings/listing";
import { checkTenant, createTenant } from "../../../worker/tenant/tenant";
import { adapterConfig, callTools, uid } from "../helpers/adapters";
import { json, request } from "../helpers/requests";

/** n declared HTTP tools, as a large tenant declares them (input schema, URL and query templates, policy). */
function declared(n: number) {
  return Array.from({ length: n }, (_, i) => {
    const id = String(i).padStart(4, "0");
    return {
      name: `item_${id}`,
      description: `Item ${id}`,
      input: {
        type: "object",
        properties: { id: { type: "string", minLength: 1 }, limit: { type: "integer" } },
        required: ["id"],
        additionalProperties: false,
      },
      url: `https://api${i % 10}.example.com/v1/items/${id}/{id}`,
      query: { limit: "{limit}", lang: "en" },
      readOnly: true,
      retry: { attempts: 3 },
    };
  });
}

const BAD = 700;
const BAD_MESSAGE =
  `TOOLGATE_CONFIG is invalid: http[${BAD}]: HTTP tool "item_0${BAD}": ` +
  `invalid url/query/headers/body: "nope" is not a property of input`;

/** 1,000 declared tools, one of which (http[700]) maps a placeholder its input does not declare. */
function withBadTool(name: string): string {
  const http = declared(1000);
  http[BAD] = { ...http[BAD]!, url: `https://api0.example.com/v1/{nope}` };
  return adapterConfig(name, { http });
}

describe("declared tools are built on first use", () => {
  it("a call builds the tool it names: a bad declaration elsewhere fails the calls and listings that need it, with its name", async () => {
    const env = { TOOLGATE_CONFIG: withBadTool(`lazy-${uid()}`) };
    // A call of a good declared tool runs (its arguments are refused by its own schema; no upstream is reached).
    const { records } = await callTools(env, ["item_0001", {}]);
    expect(records[0]).toMatchObject({ tool: "item_0001", status: "rejected", error: { code: "invalid_arguments" } });
    // A call of the bad one, and any listing (it needs every tool), answer config_invalid naming it.
    const call = await request("/v1/calls/openai", {
      env,
      body: {
        role: "assistant",
        tool_calls: [
          { id: `c-${uid()}`, type: "function", function: { name: `item_0${BAD}`, arguments: '{"id":"x"}' } },
        ],
      },
    });
    const listing = await request("/v1/tools/openai", { env });
    for (const res of [call, listing]) {
      expect(res.status).toBe(500);
      expect((await json(res)).error).toEqual({ code: "config_invalid", message: BAD_MESSAGE });
    }
  });

  it("the deploy's check (checkTenant) builds every tool, so the bad one stops it", () => {
    const text = withBadTool("lazy-check");
    expect(() => createTenant(text)).not.toThrow();
    expect(() => checkTenant(text)).toThrow(ConfigError);
    expect(() => checkTenant(text)).toThrow(BAD_MESSAGE);
  });

  it("the tenant's build checks what its tools share (names, upstreams, credentials, rate limits); each tool's own fields with the tool", () => {
    const [a, b] = declared(2);
    const config = (patch: Record<string, unknown>) => adapterConfig("lazy-fields", { http: [a, { ...b, ...patch }] });
    expect(() => createTenant(config({ url: "ftp://x" }))).toThrow(
      'TOOLGATE_CONFIG is invalid: http[1]: HTTP tool "item_0001": invalid url: must be an absolute http(s) URL',
    );
    expect(() => createTenant(config({ auth: { type: "bearer", secret: "NOPE" } }))).toThrow(
      /http\[1\]\.auth: the secret "NOPE" is not declared/,
    );
    const late = createTenant(config({ description: 42 }));
    expect(late.registry.get("item_0000")?.name).toBe("item_0000");
    expect(() => late.registry.get("item_0001")).toThrow(
      /^TOOLGATE_CONFIG is invalid: http\[1\]: HTTP tool "item_0001": invalid description: Invalid type/,
    );
    expect(() => checkTenant(config({ description: 42 }))).toThrow(
      /http\[1\]: HTTP tool "item_0001": invalid description/,
    );
  });

  it("a tool built on first use has the definition and policy it would have built at once, with the tenant's override", () => {
    const http = [
      ...declared(3),
      {
        name: "weather",
        title: "Weather",
        description: "Current weather",
        input: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
        url: "https://weather.example.com/v1/{city}",
        auth: { type: "query", name: "appid", secret: "W" },
        rateLimit: { requests: 5, intervalMs: 1000 },
        output: { type: "object", properties: { tempC: { type: "number" } }, required: ["tempC"] },
        response: { tempC: "/main/temp" },
        risk: "medium",
        concurrency: { limit: 2, key: "/city" },
      },
    ];
    const tenant = createTenant(
      adapterConfig("lazy-same", {
        http,
        secrets: { W: "W_KEY" },
        policies: { item_0001: { risk: "high", timeoutMs: 2000 } },
      }),
    );
    for (const declaration of http) {
      const lazy = tenant.registry.get(declaration.name)!;
      const eager = httpTool(declaration as Parameters<typeof httpTool>[0]);
      const override = declaration.name === "item_0001" ? { risk: "high", timeoutMs: 2000 } : {};
      expect(lazy.policy).toEqual({ ...eager.policy, ...override });
      expect([lazy.name, lazy.title, lazy.description, lazy.source]).toEqual([
        eager.name,
        eager.title,
        eager.description,
        eager.source,
      ]);
      expect(lazy.inputSchema).toEqual(eager.inputSchema);
      expect(lazy.outputSchema).toEqual(eager.outputSchema);
      for (const format of ["openai", "anthropic", "gemini", "mcp"]) {
        expect(formatNamed(format).toolDefinition(lazy)).toEqual(formatNamed(format).toolDefinition(eager));
      }
      expect(lazy.validateInput({})).toEqual(eager.validateInput({}));
    }
    // The listing holds the same tools as the lookups, built once.
    expect(tenant.registry.list().map((tool) => tool.name)).toEqual(["add", ...http.map((d) => d.name)]);
    expect(tenant.registry.list()[2]).toBe(tenant.registry.get("item_0001"));
  });

  it("GET /v1/tools/:format answers the listing's JSON, serialised once per tenant and format", async () => {
    const text = adapterConfig(`lazy-json-${uid()}`, { http: declared(50) });
    const tenant = createTenant(text);
    expect(tenant.listings.has("openai:json")).toBe(false);
    const json = toolListingJson(tenant, formatNamed("openai"));
    expect(JSON.parse(json)).toEqual(toolListing(tenant, formatNamed("openai")));
    expect(tenant.listings.get("openai:json")).toBe(json);
    const res = await request("/v1/tools/openai", { env: { TOOLGATE_CONFIG: text } });
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await res.text()).toBe(json);
  });

  it("approval rules apply to a declared tool built on first use", async () => {
    const env = {
      TOOLGATE_CONFIG: adapterConfig(`lazy-approval-${uid()}`, {
        http: declared(20),
        requireApprovalFor: { risk: ["high"] },
        policies: { item_0010: { risk: "high" } },
      }),
    };
    const { records } = await callTools(env, ["item_0010", { id: "x" }], ["item_0011", {}]);
    expect(records[0]).toMatchObject({
      tool: "item_0010",
      status: "pending",
      permission: "approval",
      error: { code: "approval_required" },
    });
    expect(records[1]).toMatchObject({ tool: "item_0011", status: "rejected", error: { code: "invalid_arguments" } });
  });
});
