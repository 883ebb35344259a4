import { describe, expect, it } from "vitest";
import { ConfigError } from "../../../worker/errors";
import { checkTenant, createTenant } from "../../../worker/tenant/tenant";
import { adapterConfig, callTools, uid, upstreams } from "../helpers/adapters";
import { ADMIN_KEY, CALL_KEY, json, request } from "../helpers/requests";
import { signIn, withEnv } from "../helpers/oauth";

const api = upstreams.httpApi;
const SECRET = "up-secret-Value/42+xyz";

const echoInput = {
  type: "object",
  properties: { id: { type: "string" }, q: { type: "string" } },
  required: ["id"],
  additionalProperties: false,
};
const http = [
  // The credential travels in the query (the echo shows it decoded) and in a custom header (not a "sensitive" name).
  {
    name: "echo_get",
    description: "Echo a GET",
    url: `${api}/echo/{id}`,
    input: echoInput,
    auth: { type: "query", name: "api_key", secret: "UP_KEY" },
  },
  {
    name: "echo_header",
    description: "Echo with a header credential",
    url: `${api}/echo/h`,
    auth: { type: "header", name: "x-upstream-cred", secret: "UP_KEY" },
  },
  // Basic auth: the upstream's error text echoes the base64 of "bot:<secret>".
  {
    name: "fail_basic",
    description: "Fails",
    url: `${api}/fail`,
    auth: { type: "basic", username: "bot", passwordSecret: "UP_KEY" },
    retry: { attempts: 1 },
  },
  {
    name: "leave",
    description: "Redirects elsewhere",
    url: `${api}/redirect`,
    input: { type: "object", properties: { to: { type: "string" } } },
  },
];
const petstore = {
  openapi: "3.0.3",
  info: { title: "Things", version: "1" },
  servers: [{ url: api }],
  paths: {
    "/echo/things/{id}": {
      get: {
        operationId: "getThing",
        summary: "One thing",
        parameters: [
          { name: "id", in: "path", required: true, schema: { type: "integer" } },
          { name: "q", in: "query", schema: { type: "string" } },
        ],
      },
    },
  },
};

function tenantEnv(name: string, patch: Record<string, unknown> = {}) {
  return {
    TOOLGATE_CONFIG: adapterConfig(name, {
      http,
      openapi: [{ name: "things", document: petstore, prefix: "api_" }],
      secrets: { UP_KEY: "ADAPTER_UP_KEY" },
      ...patch,
    }),
    ADAPTER_UP_KEY: SECRET,
  };
}

describe("HTTP and OpenAPI adapters through the Worker", () => {
  it("lists adapter tools beside code tools and runs one end to end through POST /v1/calls/openai", async () => {
    const env = tenantEnv(`http-${uid()}`);
    const listed = await json(await request("/v1/tools/openai", { env }));
    expect(listed.tools.map((t: any) => t.function.name).sort()).toEqual([
      "add",
      "api_getThing",
      "echo_get",
      "echo_header",
      "fail_basic",
      "leave",
    ]);

    const { messages, records } = await callTools(
      env,
      ["echo_get", { id: "a b", q: "x" }],
      ["api_getThing", { id: 7, q: "y" }],
      ["add", { a: 1, b: 2 }],
    );
    expect(records.map((r) => [r.tool, r.status, r.source])).toEqual([
      ["echo_get", "succeeded", "http"],
      ["api_getThing", "succeeded", "openapi"],
      ["add", "succeeded", expect.any(String)],
    ]);
    const echoed = JSON.parse(messages[0]!.content);
    expect(echoed).toMatchObject({ method: "GET", path: "/echo/a%20b" });
    expect(echoed.query).toContainEqual(["q", "x"]);
    expect(JSON.parse(messages[1]!.content)).toMatchObject({ path: "/echo/things/7", query: [["q", "y"]] });
    expect(JSON.parse(messages[2]!.content)).toEqual({ sum: 3 });
  });

  it("never forwards the caller's toolgate key, only the configured credential", async () => {
    const env = tenantEnv(`key-${uid()}`);
    const { records } = await callTools(env, ["echo_header", {}]);
    const headers = records[0].output.structured.headers as Record<string, string>;
    expect(headers.authorization).toBeUndefined();
    expect(JSON.stringify(headers)).not.toContain(CALL_KEY);
    expect(headers["x-upstream-cred"]).toBe("[redacted]"); // sent, then masked in what comes back
  });

  it("never forwards an OAuth access token either", async () => {
    const env = tenantEnv(`oauth-${uid()}`);
    const { tokens } = await withEnv(env, () => signIn());
    const body = [{ id: `c-${uid()}`, type: "function", function: { name: "echo_header", arguments: "{}" } }];
    const answer = await json(await request("/v1/calls/openai", { env, key: tokens.access_token, body }));
    expect(answer.calls[0].status).toBe("succeeded");
    const headers = answer.calls[0].output.structured.headers as Record<string, string>;
    expect(headers.authorization).toBeUndefined();
    expect(JSON.stringify(headers)).not.toContain(tokens.access_token.split(":")[2]);
    expect(headers["x-upstream-cred"]).toBe("[redacted]");
  });

  it("masks a secret the upstream echoes (raw in JSON, base64 in an error) in the response and the record", async () => {
    const env = tenantEnv(`sec-${uid()}`);
    const { ids, messages, records } = await callTools(
      env,
      ["echo_get", { id: "1" }],
      ["echo_header", {}],
      ["fail_basic", {}],
    );
    expect(records.map((r) => r.status)).toEqual(["succeeded", "succeeded", "failed"]);
    expect(records[2].error.code).toBe("upstream_error");
    expect(records[2].error.message).toMatch(/500/);
    expect(JSON.parse(messages[0]!.content).query).toContainEqual(["api_key", "[redacted]"]);
    const stored = await Promise.all(
      ids.map(async (id) => JSON.stringify(await json(await request(`/v1/calls/${id}`, { env })))),
    );
    for (const text of [JSON.stringify(messages), JSON.stringify(records), ...stored]) {
      expect(text).not.toContain(SECRET);
      expect(text).not.toContain(btoa(`bot:${SECRET}`));
      expect(text).not.toContain(encodeURIComponent(SECRET));
    }
    expect(stored[2]).toContain("upstream exploded; you sent Basic"); // the excerpt is there, only the secret is cut
  });

  it("refuses a redirect to a host outside the allow-list before any request goes there", async () => {
    const env = tenantEnv(`egress-${uid()}`);
    const { records } = await callTools(
      env,
      ["leave", { to: "https://evil.example/steal" }],
      ["leave", { to: "http://10.0.0.1/" }],
    );
    expect(records.map((r) => r.error?.code)).toEqual(["denied", "denied"]);
    expect(records[0].error.message).toMatch(/Egress refused: host evil\.example is not in the allow-list/);
    expect(records[1].error.message).toMatch(/Egress refused: http is not allowed for 10\.0\.0\.1/);
  });
});

describe("adapter configuration errors", () => {
  const base = { name: "acme", tools: ["add"], keys: [{ name: "k", hash: "a".repeat(64), scopes: ["admin"] }] };
  const error = (patch: Record<string, unknown>): string => {
    try {
      checkTenant({ ...base, ...patch });
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError);
      return (e as Error).message;
    }
    throw new Error("expected a ConfigError");
  };
  const tool = { name: "t", description: "d", url: "https://api.example.com/x" };

  it("names the section, the adapter and the field", () => {
    expect(error({ http: [tool, { ...tool, name: "u", url: "ftp://x" }] })).toBe(
      'TOOLGATE_CONFIG is invalid: http[1]: HTTP tool "u": invalid url: must be an absolute http(s) URL',
    );
    expect(error({ http: [{ ...tool, method: "FETCH" }] })).toMatch(
      /^TOOLGATE_CONFIG is invalid: http\[0\]: HTTP tool "t": invalid method: /,
    );
    expect(error({ http: [{ ...tool, url: "https://api.example.com/{nope}" }] })).toMatch(
      /http\[0\]: HTTP tool "t": invalid url\/query\/headers\/body: "nope" is not a property of input/,
    );
    expect(
      error({
        openapi: [{ name: "pets", document: petstore, baseUrl: "https://things.example.com", operations: ["nope"] }],
      }),
    ).toMatch(/openapi\[0\]: OpenAPI "pets": invalid operations: no operation "nope"/);
    expect(error({ openapi: [{ name: "pets", document: { openapi: "3.0.0", paths: {} } }] })).toMatch(
      /openapi\[0\]: OpenAPI "pets": invalid baseUrl: the document has no servers\[0\]\.url/,
    );
    expect(error({ mcp: [{ name: "a b", url: "https://mcp.example.com/mcp" }] })).toMatch(
      /mcp\[0\]: MCP server "a b": invalid name/,
    );
    expect(
      error({
        mcp: [
          { name: "m", url: "https://a.example/mcp" },
          { name: "m", url: "https://b.example/mcp" },
        ],
      }),
    ).toMatch(/mcp\[1\]\.name: "m" is also the name of mcp\[0\]/);
  });

  it("checks credentials, egress and shared limits against the rest of the configuration", () => {
    expect(error({ http: [{ ...tool, auth: { type: "bearer", secret: "GH" } }] })).toMatch(
      /http\[0\]\.auth: the secret "GH" is not declared in "secrets"/,
    );
    expect(error({ http: [{ ...tool, url: "http://api.example.com/x" }] })).toMatch(
      /http\[0\]\.url: http is not allowed for api\.example\.com .*egress\.allowHttpHosts \(loopback only\)$/,
    );
    expect(error({ http: [{ ...tool, url: "https://10.1.2.3/x" }] })).toMatch(
      /http\[0\]\.url: 10\.1\.2\.3 is a private address/,
    );
    expect(error({ http: [{ ...tool, url: "https://0x7f.1/x" }] })).toMatch(
      /http\[0\]\.url: 127\.0\.0\.1 is a loopback address/,
    );
    expect(error({ egress: { allowHttpHosts: ["api.example.com"] } })).toMatch(
      /egress\.allowHttpHosts\[0\]: must be a loopback host/,
    );
    const limited = { ...tool, rateLimit: { requests: 5, intervalMs: 1000 } };
    expect(error({ http: [limited, { ...limited, name: "u", rateLimit: { requests: 6, intervalMs: 1000 } }] })).toMatch(
      /http\[1\]\.rateLimit: differs from http\[0\]\.rateLimit for the same upstream https:\/\/api\.example\.com/,
    );
    expect(error({ http: [{ ...tool, name: "add" }] })).toMatch(/the tool name "add" is used twice/);
    expect(error({ http: [tool], policies: { gh_issue: { risk: "high" } } })).toMatch(
      /policies: "gh_issue" is not one of the tenant's tools/,
    );
    // A remote tool is only known at run time: a name under an MCP server's prefix passes.
    expect(() =>
      createTenant({
        ...base,
        mcp: [{ name: "gh", url: "https://mcp.example.com/mcp", prefix: "gh_" }],
        policies: { gh_issue: { risk: "high" } },
      }),
    ).not.toThrow();
  });

  it("answers a bad declaration in TOOLGATE_CONFIG as a readable config error", async () => {
    const res = await request("/v1/tools/openai", {
      env: {
        TOOLGATE_CONFIG: adapterConfig(`bad-${uid()}`, {
          http: [{ name: "weather", description: "d", url: "https://api.example.com/w", timeoutMs: -1 }],
        }),
      },
    });
    expect(res.status).toBe(500);
    expect((await json(res)).error).toEqual({
      code: "config_invalid",
      message: expect.stringMatching(
        /^TOOLGATE_CONFIG is invalid: http\[0\]: HTTP tool "weather": invalid timeoutMs: /,
      ),
    });
  });

  it("shows the adapters to admins only, without secret values", async () => {
    const env = tenantEnv(`view-${uid()}`);
    expect((await request("/v1/adapters", { env })).status).toBe(403);
    const body = await json(await request("/v1/adapters", { env, key: ADMIN_KEY }));
    expect(body.http.map((h: any) => h.name)).toEqual(["echo_get", "echo_header", "fail_basic", "leave"]);
    expect(body.openapi).toEqual([{ name: "things", upstream: api, tools: ["api_getThing"] }]);
    expect(body.egress.allowHosts).toContain(api); // the adapters' origins, not their hosts
    expect(JSON.stringify(body)).not.toContain(SECRET);
  });
});
