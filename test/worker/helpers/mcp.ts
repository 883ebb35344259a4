import { env, exports } from "cloudflare:workers";
import { Client as V2Client, StreamableHTTPClientTransport as V2Transport } from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";
import { app } from "../../fixtures/app";
import { DEMO_CONFIG } from "../../../worker/demo/tenant";
import { MCP_FIXTURE_TOOLS } from "../../fixtures/tools/mcp";
import { BASE, CALL_KEY } from "./requests";

export const MCP_URL = `${BASE}/mcp`;

/** The demo tenant plus the conformance fixtures (progress, logging, rich content). */
export const FIXTURE_VARS = {
  TOOLGATE_CONFIG: JSON.stringify({
    ...DEMO_CONFIG,
    name: "mcp-fixtures",
    tools: [...DEMO_CONFIG.tools, ...MCP_FIXTURE_TOOLS.map((t) => t.name)],
  }),
};

export interface McpTarget {
  /** The bearer key; null sends none. Default: the demo call key. */
  key?: string | null;
  /** Run the app with these vars (another tenant config …) instead of the deployed Worker. */
  vars?: Record<string, string>;
  /** Ask for this protocol version in initialize (the SDK client always asks for its newest). */
  version?: string;
  headers?: Record<string, string>;
  /** Where the server is: default MCP_URL (a curated endpoint's is `${BASE}/mcp/<name>`). */
  url?: string;
}

/** A fetch into the Worker under test, for the SDK transport or by hand. */
export function mcpFetch(target: McpTarget = {}): typeof fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    const headers = new Headers(request.headers);
    const key = target.key === undefined ? CALL_KEY : target.key;
    if (key !== null) headers.set("authorization", `Bearer ${key}`);
    for (const [name, value] of Object.entries(target.headers ?? {})) headers.set(name, value);
    let body: string | undefined = request.method === "POST" ? await request.text() : undefined;
    if (target.version && body?.includes('"initialize"')) {
      const message = JSON.parse(body);
      if (message.method === "initialize")
        body = JSON.stringify({ ...message, params: { ...message.params, protocolVersion: target.version } });
    }
    const sent = new Request(request.url, {
      method: request.method,
      headers,
      ...(body === undefined ? {} : { body }),
      signal: request.signal,
    });
    return target.vars ? app.request(sent, undefined, { ...env, ...target.vars }) : exports.default.fetch(sent);
  };
}

/** The official v1 SDK client (@modelcontextprotocol/sdk) connected to /mcp: 2025-11-25. */
export async function connect(
  target: McpTarget = {},
): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const client = new Client(
    { name: "toolgate-test", version: "1.0.0" },
    { jsonSchemaValidator: new CfWorkerJsonSchemaValidator() },
  );
  const transport = new StreamableHTTPClientTransport(new URL(target.url ?? MCP_URL), { fetch: mcpFetch(target) });
  await client.connect(transport);
  return { client, transport };
}

/** One raw JSON-RPC POST, for what the SDK client would never send. */
export function post(body: unknown, headers: Record<string, string> = {}, target: McpTarget = {}): Promise<Response> {
  return mcpFetch(target)(target.url ?? MCP_URL, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

export const initializeRequest = (version = "2025-11-25") => ({
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: { protocolVersion: version, capabilities: {}, clientInfo: { name: "raw", version: "1" } },
});

/** A session opened by hand: its id and the headers later requests need. */
export async function openSession(target: McpTarget = {}, version = "2025-11-25"): Promise<Record<string, string>> {
  const res = await post(initializeRequest(version), {}, target);
  if (res.status !== 200) throw new Error(`initialize answered ${res.status}: ${await res.text()}`);
  return { "mcp-session-id": res.headers.get("mcp-session-id")!, "mcp-protocol-version": version };
}

/** The 2026-07-28 client's request envelope: version, capabilities and identity in params._meta. */
export const MODERN = "2026-07-28";
export const modernMeta = (more: Record<string, unknown> = {}) => ({
  "io.modelcontextprotocol/protocolVersion": MODERN,
  "io.modelcontextprotocol/clientCapabilities": {},
  "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
  ...more,
});

/** One conformant 2026-07-28 request by hand: envelope in _meta, standard headers; `headers` overrides them. */
export function modernPost(
  method: string,
  params: Record<string, unknown> = {},
  options: {
    id?: number | string;
    headers?: Record<string, string>;
    meta?: Record<string, unknown>;
    target?: McpTarget;
  } = {},
): Promise<Response> {
  const name = method === "tools/call" ? params.name : undefined;
  const headers: Record<string, string> = {
    "mcp-protocol-version": MODERN,
    "mcp-method": method,
    ...(typeof name === "string" ? { "mcp-name": name } : {}),
    ...options.headers,
  };
  const body = { jsonrpc: "2.0", id: options.id ?? 1, method, params: { ...params, _meta: modernMeta(options.meta) } };
  return post(body, headers, options.target);
}

export type VersionMode = "legacy" | "auto" | { pin: "2026-07-28" };

/** The official v2 client (@modelcontextprotocol/client) in one of its negotiation modes. */
export async function connectV2(mode: VersionMode, target: McpTarget = {}): Promise<V2Client> {
  const client = new V2Client({ name: "toolgate-test-v2", version: "1.0.0" }, { versionNegotiation: { mode } });
  await client.connect(new V2Transport(new URL(target.url ?? MCP_URL), { fetch: mcpFetch(target) }));
  return client;
}
