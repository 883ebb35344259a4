/**
 * The requests bench/http.ts and bench/http-peers.ts send: one `add` call each, as MCP tools/call
 * (toolgate's /mcp, the SDK server's /json and /sse) or as an OpenAI assistant message (toolgate's
 * /v1/calls/openai), and the autocannon run that sends them.
 */
import autocannon from "autocannon";
import type { Result } from "autocannon";
import { DEMO_KEYS } from "../../worker/demo/tenant";

export interface Target {
  name: string;
  /** Origin of the server. */
  url: string;
  method?: "GET" | "POST";
  path: string;
  headers: Record<string, string>;
  /** A fresh body per request (toolgate's call ids must not repeat: a repeat is a replay, not a run). */
  body: () => string;
  /** Headers made afresh for each request, over `headers` (a new user token per request). */
  freshHeaders?: () => Record<string, string>;
  /** What the checked answer must contain (a POST's default: the add call's sum). */
  expect?: string;
}

const PROTOCOL_VERSION = "2025-11-25";
const MCP_HEADERS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  "mcp-protocol-version": PROTOCOL_VERSION,
};
export const AUTH = { authorization: `Bearer ${DEMO_KEYS.call}` };

let seq = 0;
const mcpCall = () =>
  JSON.stringify({
    jsonrpc: "2.0",
    id: ++seq,
    method: "tools/call",
    params: { name: "add", arguments: { a: 1, b: 2 } },
  });
/** One tool call of an OpenAI assistant message: its name and its arguments' JSON text. */
export interface OpenAiCall {
  name: string;
  arguments: string;
  /** What its answer holds (the tool message's content, JSON-escaped inside the answer). */
  expect: string;
}
export const ADD_CALL: OpenAiCall = { name: "add", arguments: '{"a":1,"b":2}', expect: '{\\"sum\\":3}' };
export const ECHO_CALL: OpenAiCall = { name: "echo", arguments: '{"text":"hello"}', expect: '"content":"hello"' };

/** An assistant message with `calls` calls of `tool`, each with a fresh id. */
const openaiCalls = (calls: number, tool: OpenAiCall) => () => {
  const call = () => ({
    id: `bench-${process.pid}-${++seq}`,
    type: "function",
    function: { name: tool.name, arguments: tool.arguments },
  });
  return JSON.stringify({ role: "assistant", content: null, tool_calls: Array.from({ length: calls }, call) });
};

export function sdkTarget(name: string, url: string, path: "/json" | "/sse"): Target {
  return { name, url, path, headers: MCP_HEADERS, body: mcpCall };
}

/** toolgate's MCP endpoint needs a session: initialize once, then every call carries its id. */
export async function toolgateMcpTarget(name: string, url: string): Promise<Target> {
  const init = {
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: { protocolVersion: PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: "bench", version: "1" } },
  };
  const res = await fetch(`${url}/mcp`, {
    method: "POST",
    headers: { ...MCP_HEADERS, ...AUTH },
    body: JSON.stringify(init),
  });
  const session = res.headers.get("mcp-session-id");
  if (!res.ok || !session)
    throw new Error(`${name}: initialize answered ${res.status} ${(await res.text()).slice(0, 300)}`);
  const headers = { ...MCP_HEADERS, ...AUTH, "mcp-session-id": session };
  await fetch(`${url}/mcp`, {
    method: "POST",
    headers,
    body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
  });
  return { name, url, path: "/mcp", headers, body: mcpCall };
}

/** MCP 2026-07-28: no session; the envelope in params._meta, the method and tool in headers. */
const MODERN_VERSION = "2026-07-28";
const modernCall = () =>
  JSON.stringify({
    jsonrpc: "2.0",
    id: ++seq,
    method: "tools/call",
    params: {
      name: "add",
      arguments: { a: 1, b: 2 },
      _meta: {
        "io.modelcontextprotocol/protocolVersion": MODERN_VERSION,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": { name: "bench", version: "1" },
      },
    },
  });

/**
 * One 2026-07-28 tools/call of `add` per request to `path` (an MCP endpoint, or a fixture route that
 * reads the same body); `headers` adds to the MCP ones (toolgate's key).
 */
export function modernMcpTarget(
  name: string,
  url: string,
  path = "/mcp",
  headers: Record<string, string> = {},
): Target {
  return {
    name,
    url,
    path,
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": MODERN_VERSION,
      "mcp-method": "tools/call",
      "mcp-name": "add",
      ...headers,
    },
    body: modernCall,
  };
}

export function toolgateOpenAiTarget(name: string, url: string, calls = 1, tool: OpenAiCall = ADD_CALL): Target {
  return {
    name,
    url,
    path: "/v1/calls/openai",
    headers: { "content-type": "application/json", ...AUTH },
    body: openaiCalls(calls, tool),
    expect: tool.expect,
  };
}

/** The same request as `like` (headers and body) sent to another server's path that answers `{"ok":true}`. */
export function sameRequestTarget(name: string, url: string, path: string, like: Target): Target {
  return { ...like, name, url, path, expect: '{"ok":true}' };
}

/** A plain GET that must answer 200, with `headers` (an Authorization header for an authenticated route). */
export function getTarget(name: string, url: string, path: string, headers: Record<string, string> = {}): Target {
  return { name, url, method: "GET", path, headers, body: () => "" };
}

/** GET /healthz of the same Worker: a constant JSON through the same middleware, wrangler dev's floor. */
export function toolgateFloorTarget(name: string, url: string): Target {
  return getTarget(name, url, "/healthz");
}

/** One request, checked: 200 and the sum in the answer (JSON, or the SSE event's data), no error. */
export async function checkTarget(target: Target): Promise<void> {
  if (target.method === "GET") {
    const res = await fetch(target.url + target.path, { headers: target.headers });
    if (res.status !== 200) throw new Error(`${target.name}: answered ${res.status}`);
    return;
  }
  const headers = { ...target.headers, ...target.freshHeaders?.() };
  const res = await fetch(target.url + target.path, { method: "POST", headers, body: target.body() });
  const text = await res.text();
  const expected = target.expect ?? ADD_CALL.expect;
  const ok =
    res.status === 200 && text.includes(expected) && !text.includes('"isError":true') && !text.includes('"error"');
  if (!ok) throw new Error(`${target.name}: the call did not answer ${expected}: ${res.status} ${text.slice(0, 300)}`);
}

/** autocannon against one target for `seconds`, `connections` at once; a fresh body per request. */
export function loadTarget(target: Target, seconds: number, connections: number): Promise<Result> {
  if (target.method === "GET")
    return autocannon({ url: target.url + target.path, headers: target.headers, connections, duration: seconds });
  return autocannon({
    url: target.url,
    connections,
    duration: seconds,
    requests: [
      {
        method: "POST",
        path: target.path,
        headers: target.headers,
        setupRequest: (req) => ({
          ...req,
          body: target.body(),
          ...(target.freshHeaders ? { headers: { ...target.headers, ...target.freshHeaders() } } : {}),
        }),
      },
    ],
  });
}

/** A timed run counts only when every request was answered 2xx. */
export function assertClean(target: Target, result: Result): void {
  if (result.errors || result.non2xx || result.timeouts) {
    throw new Error(
      `${target.name}: ${result.errors} errors, ${result.timeouts} timeouts, ${result.non2xx} non-2xx answers`,
    );
  }
}
