import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { httpTool } from "../../../src/adapters/http";
import type { HttpToolDeclaration } from "../../../src/adapters/declarations";
import { createEgressFetch } from "../../../src/egress";
import { executeCall } from "../../../src/pipeline/execute";
import { createRegistry } from "../../../src/registry";
import type { Tool } from "../../../src/tool";
import type { ExecuteOptions } from "../../../src/options";
import { toolError } from "../../../src/errors";
import { startHttpApi, type HttpApi } from "../../servers/http-api";

let api: HttpApi;
beforeAll(async () => {
  api = await startHttpApi();
});
afterAll(() => api.close());

const SECRETS = { API_TOKEN: "tok-SECRET-1234567", USER: "alice", PASS: "pa55-word-xyz", KEY: "k3y-value-abcdef" };
// The test API's own origin: plain http to this port of 127.0.0.1 only.
const egress = () => createEgressFetch({ allowHosts: [], allowHttpHosts: [api.url] });

async function run(tool: Tool, args: unknown, extra: { signal?: AbortSignal; fetch?: typeof fetch } = {}) {
  return executeCall(
    { id: `c_${Math.random()}`, name: tool.name, arguments: args },
    {
      registry: createRegistry([tool]),
      secrets: SECRETS,
      fetch: extra.fetch ?? egress(),
      ...(extra.signal ? { signal: extra.signal } : {}),
    },
  );
}

const decl = (over: Partial<HttpToolDeclaration>): HttpToolDeclaration => ({
  name: "t",
  description: "test tool",
  url: `${api.url}/echo`,
  ...over,
});

describe("httpTool: requests", () => {
  it("fills path parameters (encoded), query and header templates, rest args as query for GET", async () => {
    const tool = httpTool(
      decl({
        url: `${api.url}/echo/users/{id}`,
        input: {
          type: "object",
          properties: {
            id: { type: "string" },
            tags: { type: "array" },
            lang: { type: "string" },
            page: { type: "integer" },
          },
          required: ["id"],
        },
        query: { t: "{tags}", fixed: "v-{lang}" },
        headers: { "Accept-Language": "{lang}" },
      }),
    );
    const result = await run(tool, { id: "a/b c", tags: ["x", "y"], lang: "fr", page: 2 });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const echo = result.output.structured as {
      method: string;
      path: string;
      query: string[][];
      headers: Record<string, string>;
    };
    expect(echo.method).toBe("GET");
    expect(echo.path).toBe("/echo/users/a%2Fb%20c");
    expect(echo.query).toEqual([
      ["t", "x"],
      ["t", "y"],
      ["fixed", "v-fr"],
      ["page", "2"],
    ]);
    expect(echo.headers["accept-language"]).toBe("fr");
    expect(result.record.source).toBe("http");
  });

  it("refuses path traversal through a path parameter", async () => {
    const tool = httpTool(
      decl({ url: `${api.url}/echo/{id}`, input: { type: "object", properties: { id: { type: "string" } } } }),
    );
    const result = await run(tool, { id: ".." });
    expect(!result.ok && result.error.code).toBe("invalid_arguments");
  });

  it("sends remaining args as a JSON body for POST, or one argument as the body", async () => {
    const rest = httpTool(
      decl({
        method: "POST",
        url: `${api.url}/echo/{id}`,
        input: { type: "object", properties: { id: { type: "string" }, n: { type: "number" } } },
      }),
    );
    const r1 = await run(rest, { id: "1", n: 5 });
    expect(r1.ok && (r1.output.structured as { body: string }).body).toBe('{"n":5}');
    const one = httpTool(
      decl({
        method: "PUT",
        body: { arg: "doc" },
        input: { type: "object", properties: { doc: { type: "object" }, q: { type: "string" } } },
        rest: "query",
      }),
    );
    const r2 = await run(one, { doc: { a: [1] }, q: "z" });
    expect(r2.ok && r2.output.structured).toMatchObject({ method: "PUT", body: '{"a":[1]}', query: [["q", "z"]] });
  });

  it.each([
    [{ type: "bearer", secret: "API_TOKEN" }, "authorization", `Bearer ${SECRETS.API_TOKEN}`],
    [{ type: "header", name: "X-Api-Key", secret: "KEY" }, "x-api-key", SECRETS.KEY],
    [
      { type: "basic", usernameSecret: "USER", passwordSecret: "PASS" },
      "authorization",
      `Basic ${btoa("alice:pa55-word-xyz")}`,
    ],
  ] as const)("sends the %o credential only to the upstream and never shows it", async (auth, header, expected) => {
    const tool = httpTool(decl({ auth }));
    const seen: string[] = [];
    const spy = (async (url: string, init: RequestInit) => {
      seen.push(new Headers(init.headers).get(header) ?? "");
      return egress()(url, init);
    }) as typeof fetch;
    const result = await run(tool, {}, { fetch: spy });
    expect(seen).toEqual([expected]);
    // The echo carries the credential back; the pipeline's masking removes it from the result and record.
    const text = JSON.stringify(result);
    expect(text).not.toContain(SECRETS.API_TOKEN);
    expect(text).not.toContain(SECRETS.KEY);
    expect(text).not.toContain(btoa("alice:pa55-word-xyz"));
  });

  it("sends a query credential", async () => {
    const tool = httpTool(decl({ auth: { type: "query", name: "api_key", secret: "KEY" } }));
    const seen: string[] = [];
    const spy = (async (url: string, init: RequestInit) => (seen.push(url), egress()(url, init))) as typeof fetch;
    await run(tool, {}, { fetch: spy });
    expect(new URL(seen[0] as string).searchParams.get("api_key")).toBe(SECRETS.KEY);
  });

  it("fails clearly when a referenced secret is not configured", async () => {
    const tool = httpTool(decl({ auth: { type: "bearer", secret: "MISSING" } }));
    const result = await run(tool, {});
    expect(!result.ok && result.error.message).toMatch(/secret "MISSING" is not configured/);
  });
});

describe("httpTool: responses", () => {
  it("returns text for text types", async () => {
    const result = await run(httpTool(decl({ url: `${api.url}/text` })), {});
    expect(result.ok && result.output).toEqual({ content: [{ type: "text", text: "plain text ✓" }] });
  });

  it("caps large bodies and flags truncation", async () => {
    const result = await run(httpTool(decl({ url: `${api.url}/big?size=5000`, maxResponseBytes: 100 })), {});
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.output.truncated).toBe(true);
    expect(result.output.structured).toBeUndefined();
    expect((result.output.content[0] as { text: string }).text).toMatch(
      /^\{"data":"x+\n\[response truncated at 100 bytes\]$/,
    );
  });

  it("returns images as image content, other binary as a note, empty bodies as a status line", async () => {
    const img = await run(httpTool(decl({ url: `${api.url}/image` })), {});
    expect(img.ok && img.output.content).toEqual([{ type: "image", data: "iVBORw==", mimeType: "image/png" }]);
    const bin = await run(httpTool(decl({ url: `${api.url}/binary` })), {});
    expect(bin.ok && bin.output.content[0]).toEqual({
      type: "text",
      text: "(binary response: application/octet-stream (10 bytes))",
    });
    const empty = await run(httpTool(decl({ url: `${api.url}/empty` })), {});
    expect(empty.ok && empty.output.content[0]).toEqual({ type: "text", text: "(empty response, HTTP 204)" });
  });

  it("maps non-2xx to upstream_error with status and a masked excerpt", async () => {
    const tool = httpTool(decl({ url: `${api.url}/fail?status=404`, auth: { type: "bearer", secret: "API_TOKEN" } }));
    const result = await run(tool, {});
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.code).toBe("upstream_error");
    expect(result.error.status).toBe(404);
    expect(result.error.message).toMatch(/answered HTTP 404: upstream exploded; you sent Bearer \[redacted\]/);
    expect(result.error.message).not.toContain(SECRETS.API_TOKEN);
  });

  it("retries a 429 with Retry-After for an idempotent GET, after the given delay", async () => {
    const tool = httpTool(decl({ url: `${api.url}/limited/a?after=2&retry=1`, retry: { attempts: 3, baseMs: 1 } }));
    const started = Date.now();
    const result = await run(tool, {});
    expect(result.ok).toBe(true);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(result.record.attempts).toBe(2);
    expect(api.hits.get("/limited/a")).toBe(2);
  });

  it("does not retry a POST (not idempotent) and reports the retry-after hint", async () => {
    const tool = httpTool(
      decl({
        method: "POST",
        url: `${api.url}/limited/b?after=5&status=503&retry=7`,
        retry: { attempts: 3, baseMs: 1 },
      }),
    );
    const result = await run(tool, {});
    expect(!result.ok && result.error).toMatchObject({ code: "upstream_error", status: 503, retryAfterMs: 7000 });
    expect(api.hits.get("/limited/b")).toBe(1);
  });

  it("times out a slow upstream and aborts the request", async () => {
    const tool = httpTool(decl({ url: `${api.url}/slow?ms=5000`, timeoutMs: 200 }));
    const started = Date.now();
    const result = await run(tool, {});
    expect(!result.ok && result.error.code).toBe("timeout");
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it("follows redirects through the egress check and refuses a redirect out of the allow-list", async () => {
    const ok = await run(httpTool(decl({ url: `${api.url}/redirect?to=/echo/after` })), {});
    expect(ok.ok && (ok.output.structured as { path: string }).path).toBe("/echo/after");
    const out = await run(
      httpTool(decl({ url: `${api.url}/redirect?to=${encodeURIComponent("http://169.254.169.254/latest")}` })),
      {},
    );
    expect(!out.ok && out.error).toMatchObject({ code: "denied" });
    expect(!out.ok && out.error.message).toMatch(/Egress refused/);
  });
});

describe("httpTool: declarations", () => {
  it.each([
    [{ name: "bad name!", description: "", url: "https://x.example" }, /HTTP tool "bad name!": invalid name/],
    [{ name: "t", description: "", url: "ftp://x" }, /HTTP tool "t": invalid url/],
    [{ name: "t", description: "", url: "https://x.example", method: "TRACE" }, /invalid method/],
    [{ name: "t", description: "", url: "https://x.example", auth: { type: "bearer" } }, /invalid auth.secret/],
    [{ name: "t", description: "", url: "https://x.example", timeoutMs: -1 }, /invalid timeoutMs/],
    [
      { name: "t", description: "", url: "https://x.example", input: { type: "string" } },
      /invalid input: .*type "object"/,
    ],
    [
      { name: "t", description: "", url: "https://x.example/{idd}", input: { type: "object", properties: { id: {} } } },
      /"idd" is not a property of input/,
    ],
    [{ name: "t", description: "", url: "https://x.example", extra: 1 }, /invalid extra/],
  ])("rejects %o", (bad, message) => {
    expect(() => httpTool(bad as HttpToolDeclaration)).toThrow(message);
  });

  it("finds every placeholder of the URL, query and headers, template after template", () => {
    const input = { type: "object", properties: { a: {}, b: {}, c: {} } };
    const mapped = { url: "https://x.example/{a}/{b}", query: { q: "{b}-{c}" }, headers: { "x-d": "{a}{d}" } };
    expect(() => httpTool({ name: "t", description: "", ...mapped, input })).toThrow(/"d" is not a property of input/);
    expect(() =>
      httpTool({
        name: "t",
        description: "",
        ...mapped,
        input: { ...input, properties: { ...input.properties, d: {} } },
      }),
    ).not.toThrow();
    expect(() => httpTool({ name: "t", description: "", ...mapped, query: { q: "{b}-{e}" }, input })).toThrow(
      /"e" is not a property of input/,
    );
  });

  it("derives the policy: GET idempotent by default, POST not, declared values kept", () => {
    expect(httpTool(decl({})).policy.idempotent).toBe(true);
    expect(httpTool(decl({ method: "POST" })).policy.idempotent).toBe(false);
    expect(
      httpTool(decl({ method: "PUT", idempotent: true, risk: "high", concurrency: { limit: 2 } })).policy,
    ).toMatchObject({ idempotent: true, risk: "high", concurrency: { limit: 2 } });
  });

  it("validates arguments against the declared JSON Schema before any request", async () => {
    const before = api.hits.get("/echo/v") ?? 0;
    const tool = httpTool(
      decl({
        url: `${api.url}/echo/v`,
        input: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] },
      }),
    );
    const result = await run(tool, { n: "x" });
    expect(!result.ok && result.error.code).toBe("invalid_arguments");
    expect(api.hits.get("/echo/v") ?? 0).toBe(before);
  });
});

describe("httpTool: acting as the user through a connection", () => {
  const USER_TOKEN = "gho_user-token-0123456789";
  const acting = (over: Partial<HttpToolDeclaration> = {}) =>
    httpTool(decl({ connection: { name: "github", scopes: ["repo"] }, ...over }));
  const requests = () => api.hits.get("/echo") ?? 0;

  async function runAs(tool: Tool, connectionTokens?: ExecuteOptions["connectionTokens"]) {
    const sent: (string | null)[] = [];
    const fetch: typeof globalThis.fetch = (input, init) => {
      sent.push(new Headers(init?.headers).get("authorization"));
      return egress()(input, init);
    };
    const result = await executeCall(
      { id: `c_${Math.random()}`, name: tool.name, arguments: {} },
      { registry: createRegistry([tool]), secrets: SECRETS, fetch, ...(connectionTokens ? { connectionTokens } : {}) },
    );
    return { result, sent };
  }

  it("sends the user's token as the bearer, asked for with the tool's connection and scopes", async () => {
    const asked: unknown[] = [];
    const { result, sent } = await runAs(
      acting({ auth: { type: "header", name: "x-api-key", secret: "KEY" } }),
      async (need) => {
        asked.push(need);
        return USER_TOKEN;
      },
    );
    expect(result.ok).toBe(true);
    expect(sent).toEqual([`Bearer ${USER_TOKEN}`]);
    expect(asked).toEqual([{ name: "github", scopes: ["repo"] }]);
    if (result.ok) expect((result.output.structured as { headers: object }).headers).toHaveProperty("x-api-key");
  });

  it("masks the user's token when the upstream echoes it", async () => {
    const { result, sent } = await runAs(acting({ url: `${api.url}/fail?status=500` }), async () => USER_TOKEN);
    expect(sent).toEqual([`Bearer ${USER_TOKEN}`]);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.message).toContain("you sent Bearer [redacted]");
    expect(JSON.stringify(result)).not.toContain(USER_TOKEN);
  });

  it("makes no request when the host has no connections, or refuses the user's token", async () => {
    const before = requests();
    const { result: none } = await runAs(acting());
    expect(none.ok).toBe(false);
    if (!none.ok)
      expect(none.error).toMatchObject({
        code: "denied",
        message: 'HTTP tool "t" acts as the user through connection "github", which is not set up here',
      });
    const { result: refused } = await runAs(acting(), async () => {
      throw toolError("denied", "Connect github first: https://tg.example/connections/github/connect");
    });
    expect(refused.ok).toBe(false);
    if (!refused.ok)
      expect(refused.error.message).toBe("Connect github first: https://tg.example/connections/github/connect");
    expect(requests()).toBe(before);
  });
});
