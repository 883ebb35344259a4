import { env as bindings } from "cloudflare:workers";
import { Client as V2Client, StreamableHTTPClientTransport as V2Transport } from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";
import { tenantLedger } from "../../../worker/ledger/address";
import { sessionCallId } from "../../../worker/mcp/v2025/call-ids";
import { checkSessionId } from "../../../worker/mcp/v2025/session";
import { faultTenant } from "./faults";
import { CALL_KEY_HASH, json, request } from "./requests";
import { MCP_URL, mcpFetch, post, type McpTarget } from "./mcp";
import { openSse, type Sse } from "./sse";

/** Legacy (2025-11-25) clients that declared what they answer, asked on the tools/call stream. */

export const ASKING_TOOLS = [
  "test_elicitation",
  "test_sampling",
  "test_input_required_result_multi_round",
  "test_input_required_result_list_roots",
  "test_confirm_then_work",
  "echo",
];
const keyHash = Uint8Array.from(CALL_KEY_HASH.match(/../g)!, (byte) => parseInt(byte, 16));

export function askTenant(prefix: string, patch: Record<string, unknown> = {}, vars: Record<string, string> = {}) {
  const { name, env } = faultTenant(prefix, { tools: ASKING_TOOLS, ...patch });
  const all = { ...(env as Record<string, string>), ...vars };
  return { name, env: all, target: { vars: all } as McpTarget, ledger: tenantLedger(bindings, name) };
}

export interface Answers {
  /** `params`: the elicitation's whole params (a URL-mode one's url). */
  elicit?: (message: string, params?: Record<string, unknown>) => unknown;
  /** The elicitation modes declared with `elicit` (default `{}`: form mode only). */
  elicitation?: Record<string, unknown>;
  sample?: (prompt: string) => unknown;
  roots?: () => unknown;
}

const promptOf = (params: any) => String(params.messages?.[0]?.content?.text ?? "");

/**
 * The official v1 client (@modelcontextprotocol/sdk) declaring and answering what `answers`
 * has handlers for; `asked` lists the methods it was sent.
 */
export async function v1Client(target: McpTarget, answers: Answers, fetch: typeof globalThis.fetch = mcpFetch(target)) {
  const capabilities = {
    ...(answers.elicit ? { elicitation: answers.elicitation ?? {} } : {}),
    ...(answers.sample ? { sampling: {} } : {}),
    ...(answers.roots ? { roots: {} } : {}),
  };
  const client = new Client(
    { name: "legacy-ask", version: "1" },
    { capabilities, jsonSchemaValidator: new CfWorkerJsonSchemaValidator() },
  );
  const asked: string[] = [];
  if (answers.elicit)
    client.setRequestHandler(
      ElicitRequestSchema,
      async (req) => (asked.push(req.method), answers.elicit!(req.params.message, req.params) as never),
    );
  if (answers.sample)
    client.setRequestHandler(
      CreateMessageRequestSchema,
      async (req) => (asked.push(req.method), answers.sample!(promptOf(req.params)) as never),
    );
  if (answers.roots)
    client.setRequestHandler(
      ListRootsRequestSchema,
      async (req) => (asked.push(req.method), answers.roots!() as never),
    );
  await client.connect(new StreamableHTTPClientTransport(new URL(MCP_URL), { fetch }));
  return { client, asked };
}

/** The official v2 client (@modelcontextprotocol/client) in legacy mode, answering elicitations and sampling. */
export async function v2LegacyClient(target: McpTarget, answers: Required<Pick<Answers, "elicit" | "sample">>) {
  const client = new V2Client(
    { name: "legacy-ask-v2", version: "1" },
    { versionNegotiation: { mode: "legacy" }, capabilities: { elicitation: {}, sampling: {} } },
  );
  const asked: string[] = [];
  client.setRequestHandler(
    "elicitation/create",
    async (req) => (asked.push(req.method), answers.elicit((req.params as { message: string }).message) as never),
  );
  client.setRequestHandler(
    "sampling/createMessage",
    async (req) => (asked.push(req.method), answers.sample(promptOf(req.params)) as never),
  );
  await client.connect(new V2Transport(new URL(MCP_URL), { fetch: mcpFetch(target) }));
  return { client, asked };
}

export const accept = (content: Record<string, unknown>) => ({ action: "accept", content });
export const modelSays = (text: string) => ({
  role: "assistant",
  content: { type: "text", text },
  model: "test-model",
  stopReason: "endTurn",
});

/** The records of a tenant's calls of `tool`, oldest round first (a call's rounds are `<id>`, `<id>~2` …). */
export async function roundsOf(
  env: Record<string, unknown>,
  tool: string,
): Promise<{ callId: string; status: string; error?: { code: string; message: string } }[]> {
  const calls = (await json(await request(`/v1/calls?tool=${tool}`, { env }))).calls.map((entry: any) => entry.record);
  return calls.sort((a: any, b: any) => a.callId.localeCompare(b.callId));
}

/**
 * A session opened by hand, declaring `capabilities`: its headers, and the id of the call a tools/call
 * with JSON-RPC id `id` makes.
 */
export async function rawSession(target: McpTarget, capabilities: Record<string, unknown>) {
  const init = {
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities, clientInfo: { name: "raw", version: "1" } },
  };
  const res = await post(init, {}, target);
  const sessionId = res.headers.get("mcp-session-id")!;
  const headers = { "mcp-session-id": sessionId, "mcp-protocol-version": "2025-11-25" };
  const session = (await checkSessionId(sessionId, keyHash))!;
  return { headers, sessionId, callIdOf: (id: number) => sessionCallId(session.ref, id) };
}

/** A tools/call sent by hand whose SSE answer is read as it comes; `signal` aborting is the client going away. */
export async function rawCall(
  target: McpTarget,
  headers: Record<string, string>,
  id: number,
  name: string,
  args: unknown,
  signal?: AbortSignal,
) {
  const body = JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } });
  const res = await mcpFetch(target)(MCP_URL, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
    body,
    ...(signal ? { signal } : {}),
  });
  // Without anything to stream before it (nothing asked, no progress), the answer is plain JSON.
  const sse = res.headers.get("content-type")?.includes("application/json") ? jsonFrames(res) : await openSse(res);
  const isAsk = (frame: Sse) => typeof frame.data?.method === "string" && frame.data.id !== undefined;
  return {
    /** The first request toolgate sent the client on this stream. */
    asked: async () => (await sse.until((frames) => frames.some(isAsk))).find(isAsk)?.data,
    /** The tools/call's own response, once it comes. */
    answer: async () =>
      (await sse.until((frames) => frames.some((f) => f.data?.id === id), 20_000)).find((f) => f.data?.id === id)?.data,
    /** Reads until `done` holds for the frames so far. */
    until: (done: (frames: Sse[]) => boolean) => sse.until(done),
    /** Every frame read so far, after reading to the response. */
    frames: () => sse.until((frames) => frames.some((f) => f.data?.id === id), 20_000),
  };
}

/** A JSON answer read like a stream of one frame. */
function jsonFrames(res: Response) {
  const frames = res.json().then((data) => [{ data } as Sse]);
  return { until: (_done: (frames: Sse[]) => boolean, _timeoutMs?: number) => frames };
}

/** The client's JSON-RPC response to toolgate's request `id`, POSTed as a client does. */
export function respond(
  target: McpTarget,
  headers: Record<string, string>,
  id: unknown,
  outcome: { result: unknown } | { error: unknown },
): Promise<Response> {
  return post({ jsonrpc: "2.0", id, ...outcome }, headers, target);
}
