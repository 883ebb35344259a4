import { createExecutionContext } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { app } from "../../fixtures/app";
import { replaceNode } from "../../fuzz-tree";
import { adapterConfig, upstreams } from "../helpers/adapters";
import { ADMIN_KEY, BASE, CALL_KEY } from "../helpers/requests";

/**
 * The HTTP API (the deployed Worker, demo tenant) under random requests: methods, paths, queries,
 * headers, content types, bodies and sizes. Every answer comes within a bound, none is a 5xx, and
 * every error is JSON with a code (MCP errors: JSON-RPC objects).
 */

const TIMEOUT_MS = 8_000;
const id = fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom("x", "%2e%2e", "..", "a%00b", "%F0%9F", "ü", "c-1"));
const enc = (s: string) => encodeURIComponent(s);

const queryValue = fc.oneof(
  fc.string({ maxLength: 8 }),
  fc.integer({ min: -5, max: 3 }).map(String),
  fc.constantFrom("1e3", "NaN", "0x10", "", "!!", "eyJ4Ijp9"),
);
const query = fc
  .dictionary(
    fc.constantFrom("limit", "cursor", "status", "tool", "since", "wait", "offset", "after", "token", "x"),
    queryValue,
    { maxKeys: 3 },
  )
  .map((q) => (Object.keys(q).length ? `?${new URLSearchParams(q)}` : ""));

const anyMethod = fc.constantFrom("GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "HEAD");
const contentType = fc.constantFrom(
  undefined,
  "application/json",
  "application/json",
  "application/json; charset=utf-8",
  "text/plain",
  "multipart/form-data; boundary=x",
  "application/x-www-form-urlencoded",
  "*/*",
  "garbage",
);
const anyAuth = fc.constantFrom(
  undefined,
  "Bearer ",
  "Bearer nope",
  "Basic eDp5",
  CALL_KEY,
  `bearer ${CALL_KEY}`,
  `Bearer ${ADMIN_KEY}`,
  `Bearer ${CALL_KEY}`,
);
const extraHeaders = fc.dictionary(
  fc.constantFrom(
    "origin",
    "accept",
    "mcp-session-id",
    "mcp-protocol-version",
    "last-event-id",
    "access-control-request-method",
    "x-request-id",
    "host",
  ),
  fc.oneof(
    fc.string({ maxLength: 20 }).filter((s) => /^[\x20-\x7e]*$/.test(s)),
    fc.constantFrom(
      "http://evil.example",
      "http://127.0.0.1:5173",
      "text/event-stream",
      "application/json, text/event-stream",
      "2025-06-18",
      "POST",
      "localhost",
    ),
  ),
  { maxKeys: 3 },
);

/** Call bodies the routes accept (tools that answer at once), to mutate. */
const tc = (name: string, args: string) => ({ id: "fz", type: "function", function: { name, arguments: args } });
const SEEDS: unknown[] = [
  { role: "assistant", content: null, tool_calls: [tc("add", '{"a":1,"b":2}'), tc("echo", '{"text":"hi"}')] },
  { type: "message", role: "assistant", content: [{ type: "tool_use", id: "fz", name: "add", input: { a: 1, b: 2 } }] },
  { candidates: [{ content: { parts: [{ functionCall: { name: "add", args: { a: 1, b: 2 } } }] } }] },
  { object: "response", output: [{ type: "function_call", call_id: "fz", name: "add", arguments: '{"a":1,"b":2}' }] },
  { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "add", arguments: { a: 1, b: 2 } } },
  {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "fz", version: "1" } },
  },
  { jsonrpc: "2.0", id: 2, method: "tools/list" },
  [{ jsonrpc: "2.0", id: 3, method: "ping" }],
  { decision: "approve" },
  { decision: "deny", reason: "no" },
];

const leaf = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  fc.constantFrom("", "echo", "fail", "tools/call", "nope", -1, 1e308, null, "__proto__"),
);
const body = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .tuple(fc.constantFrom(...SEEDS), leaf, fc.nat())
      .map(([seed, value, at]) => JSON.stringify(replaceNode(structuredClone(seed), value, at))),
  },
  { weight: 2, arbitrary: fc.constantFrom(...SEEDS).map((seed) => JSON.stringify(seed)) },
  { weight: 1, arbitrary: fc.jsonValue().map((value) => JSON.stringify(value)) },
  { weight: 1, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 64 }) },
  { weight: 1, arbitrary: fc.constantFrom("", "{", "[", "null", '{"a":', "\u0000", "{}".repeat(2)) },
  // Larger than the demo tenant's 1 MiB limit, or just under it.
  { weight: 1, arbitrary: fc.constantFrom(1_048_577, 1_000_000, 70_000).map((n) => `"${"x".repeat(n - 2)}"`) },
);

interface Sample {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string | Uint8Array | undefined;
}

/** The API's routes with the method and key they expect; a sample mostly keeps to them, then strays. */
const ROUTES: [method: string, path: fc.Arbitrary<string>, key: string][] = [
  [
    "POST",
    fc.constantFrom(
      "/v1/calls",
      "/v1/calls/openai",
      "/v1/calls/anthropic",
      "/v1/calls/gemini",
      "/v1/calls/openai-responses",
      "/v1/calls/mcp",
      "/v1/calls/OPENAI",
    ),
    CALL_KEY,
  ],
  ["GET", fc.constant("/v1/calls"), CALL_KEY],
  ["GET", id.map((s) => `/v1/calls/${enc(s)}`), CALL_KEY],
  ["GET", id.map((s) => `/v1/calls/${enc(s)}/result`), CALL_KEY],
  ["POST", id.map((s) => `/v1/calls/${enc(s)}/cancel`), CALL_KEY],
  ["GET", fc.constantFrom("/v1/approvals", "/v1/gates", "/v1/adapters", "/v1/tenant"), ADMIN_KEY],
  ["POST", id.map((s) => `/v1/approvals/${enc(s)}`), ADMIN_KEY],
  ["POST", id.map((s) => `/v1/adapters/mcp/${enc(s)}/approve`), ADMIN_KEY],
  [
    "GET",
    fc.oneof(
      fc.constantFrom("/v1/tools", "/v1/whoami", "/healthz"),
      fc.constantFrom("openai", "anthropic", "gemini", "mcp", "x", "__proto__").map((f) => `/v1/tools/${f}`),
    ),
    CALL_KEY,
  ],
  ["POST", fc.constant("/v1/events/token"), CALL_KEY],
  ["GET", fc.constant("/v1/events"), CALL_KEY],
  ["POST", fc.constantFrom("/mcp", "/mcp/"), CALL_KEY],
  ["GET", fc.constant("/mcp"), CALL_KEY],
  ["DELETE", fc.constant("/mcp"), CALL_KEY],
  [
    "GET",
    fc
      .array(fc.constantFrom("v1", "calls", "mcp", "x", "", "..", "%2F"), { maxLength: 4 })
      .map((parts) => `/v1/${parts.join("/")}`),
    CALL_KEY,
  ],
];

/** The value with probability p, else null (fc.option's freq is the other way round). */
const sometimes = <T>(arb: fc.Arbitrary<T>, p: number) =>
  fc.oneof(
    { weight: Math.round((1 - p) * 100), arbitrary: fc.constant(null) },
    { weight: Math.round(p * 100), arbitrary: arb },
  );

const sample: fc.Arbitrary<Sample> = fc
  .record({
    route: fc.constantFrom(...ROUTES),
    strayMethod: sometimes(anyMethod, 0.15),
    strayAuth: sometimes(anyAuth, 0.2),
    query,
    contentType,
    extra: extraHeaders,
    body: fc.option(body, { freq: 6 }),
  })
  .chain((r) => r.route[1].map((path) => ({ ...r, path })))
  .map((r) => {
    const [routeMethod, , key] = r.route;
    const method = r.strayMethod ?? routeMethod;
    const headers: Record<string, string> = { ...r.extra };
    if (r.contentType) headers["content-type"] = r.contentType;
    const authorization = r.strayAuth === null ? `Bearer ${key}` : r.strayAuth;
    if (authorization) headers.authorization = authorization;
    const canHaveBody = method !== "GET" && method !== "HEAD";
    return {
      method,
      url: `${BASE}${r.path}${r.query}`,
      headers,
      body: canHaveBody && r.body !== null ? r.body : undefined,
    };
  });

const describeSample = (s: Sample) => {
  const body =
    typeof s.body === "string" ? JSON.stringify(s.body.slice(0, 200)) : s.body ? `${s.body.length} bytes` : "none";
  return `${s.method} ${s.url} ${JSON.stringify(s.headers)} body ${body}`;
};

type Fetcher = (request: Request) => Promise<Response>;
const deployed: Fetcher = (request) => exports.default.fetch(request);

/** A tenant with an HTTP adapter, CORS origins and tight limits, run by the app with an execution context. */
const ADAPTER_VARS = {
  TOOLGATE_DEMO: "false",
  TOOLGATE_CONFIG: adapterConfig("fuzz-adapters", {
    tools: ["add", "echo", "send_message"],
    limits: { maxBodyBytes: 2048, maxCallsPerBatch: 2 },
    consoleOrigins: ["http://127.0.0.1:5173"],
    http: [
      {
        name: "echo_get",
        description: "echo",
        url: `${upstreams.httpApi}/echo/{id}`,
        input: { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
        timeoutMs: 2_000,
      },
    ],
    // No MCP server: adapters/mcp.test.ts asserts that every request the shared test server sees carries its token.
  }),
};
const withAdapters: Fetcher = async (request) =>
  app.fetch(request, { ...env, ...ADAPTER_VARS }, createExecutionContext());

async function send(s: Sample, fetcher: Fetcher): Promise<{ status: number; type: string; text: string }> {
  const controller = new AbortController();
  let timer!: ReturnType<typeof setTimeout>;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => (controller.abort(), reject(new Error(`no answer within ${TIMEOUT_MS} ms`))), TIMEOUT_MS);
  });
  try {
    const request = new Request(s.url, {
      method: s.method,
      headers: s.headers,
      ...(s.body === undefined ? {} : { body: s.body }),
      signal: controller.signal,
    });
    const res = await Promise.race([fetcher(request), timeout]);
    const type = res.headers.get("content-type") ?? "";
    // A stream (SSE) stays open by design: its headers answered, which is all "no hang" asks.
    if (type.startsWith("text/event-stream")) {
      await res.body?.cancel();
      return { status: res.status, type, text: "" };
    }
    return { status: res.status, type, text: await Promise.race([res.text(), timeout]) };
  } finally {
    clearTimeout(timer);
  }
}

async function fuzz(fetcher: Fetcher, numRuns: number): Promise<Map<number, number>> {
  const statuses = new Map<number, number>();
  await fc.assert(
    fc.asyncProperty(sample, async (s) => {
      const { status, type, text } = await send(s, fetcher);
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
      const where = `${status} for ${describeSample(s)}: ${text.slice(0, 300)}`;
      expect(status < 500, where).toBe(true);
      if (status >= 400 && s.method !== "HEAD") {
        expect(type, where).toMatch(/^application\/json/);
        // REST errors carry a string code, MCP's JSON-RPC errors a numeric one; a single call that
        // conflicts answers 409 with its result in the caller's format and its record.
        const parsed = JSON.parse(text);
        expect(parsed.error?.code ?? parsed.calls?.[0]?.error?.code, where).toBeDefined();
      }
    }),
    { numRuns },
  );
  return statuses;
}

describe("the HTTP API under random requests", () => {
  it("the demo tenant answers every request in time, never with a 5xx, with JSON errors", async () => {
    const statuses = await fuzz(deployed, 800);
    // The runs got past the key check into the routes, not only 401s and 404s.
    const seen = JSON.stringify([...statuses]);
    expect(statuses.get(200) ?? 0, seen).toBeGreaterThan(50);
    expect(statuses.get(400) ?? 0, seen).toBeGreaterThan(50);
  }, 60_000);

  it("so does a tenant with an HTTP adapter, CORS origins and tight limits", async () => {
    const statuses = await fuzz(withAdapters, 400);
    expect(statuses.get(413) ?? 0, JSON.stringify([...statuses])).toBeGreaterThan(0);
  }, 60_000);
});
