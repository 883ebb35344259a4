import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { toolError } from "../../src/errors";
import { createTextMasker } from "../../src/mask";
import type { ExecuteOptions } from "../../src/options";
import type { AppEnv } from "../env";
import { executionOptions } from "../execution";
import { needRemoteTools } from "../middleware/tenant";
import { answer, initialize, notice, type Exchange } from "./dispatch";
import {
  allowsBatches,
  classify,
  DEFAULT_VERSION,
  isProtocolVersion,
  RpcCode,
  RpcFailure,
  rpcError,
  rpcResult,
  type Incoming,
  type RpcRequest,
  type RpcResponse,
} from "./protocol";
import { createSessionId, endSession, isSessionOf, sessionState, type SessionState } from "./session";
import { NotificationQueue, sseResponse } from "./stream";
import { toolsNeeded } from "./tools";

/** Streamable HTTP, the transport of MCP 2025-03-26 and later, for POST, GET and DELETE on /mcp. */

export interface TransportOptions {
  /** Tools per tools/list page. */
  pageSize?: number;
}

function refuse(c: Context<AppEnv>, status: ContentfulStatusCode, code: number, message: string, headers?: Record<string, string>): Response {
  return c.json(rpcError(null, code, message), status, headers);
}

/** What the client can read: a missing Accept or a wildcard counts as both. */
function accepted(header: string | undefined): { json: boolean; sse: boolean } {
  const value = (header ?? "*/*").toLowerCase();
  const any = value.includes("*/*");
  return { json: any || value.includes("application/json"), sse: any || value.includes("text/event-stream") };
}

/** What sessions are bound to: the caller's key (its hash, or its id) or OAuth grant. */
function keyHash(c: Context<AppEnv>): Uint8Array {
  return c.var.caller.binding;
}

async function openSession(c: Context<AppEnv>): Promise<{ id: string; state: SessionState } | Response> {
  const id = c.req.header("mcp-session-id");
  if (!id) return refuse(c, 400, RpcCode.badRequest, "Bad Request: the Mcp-Session-Id header is required; send initialize first.");
  if (!(await isSessionOf(id, keyHash(c)))) return refuse(c, 404, RpcCode.sessionNotFound, "Session not found: initialize a new session.");
  return { id, state: sessionState(id) };
}

export async function handlePost(c: Context<AppEnv>, options: TransportOptions = {}): Promise<Response> {
  const type = c.req.header("content-type")?.split(";")[0]?.trim().toLowerCase();
  if (type !== "application/json") return refuse(c, 415, RpcCode.badRequest, "Unsupported Media Type: send JSON-RPC as application/json.");
  const accept = accepted(c.req.header("accept"));
  if (!accept.json && !accept.sse) {
    return refuse(c, 406, RpcCode.badRequest, "Not Acceptable: the client must accept application/json and text/event-stream.");
  }
  let body: unknown;
  try {
    body = JSON.parse(await c.req.text());
  } catch {
    return refuse(c, 400, RpcCode.parseError, "Parse error: the body is not JSON.");
  }
  const batch = Array.isArray(body);
  const items = batch ? (body as unknown[]) : [body];
  if (items.length === 0) return refuse(c, 400, RpcCode.invalidRequest, "Invalid Request: an empty batch.");
  const incoming = items.map(classify);
  const only = incoming[0]!;
  if (!batch && only.kind === "request" && only.message.method === "initialize") return startSession(c, only.message);

  const version = c.req.header("mcp-protocol-version");
  if (version !== undefined && !isProtocolVersion(version)) {
    return refuse(c, 400, RpcCode.badRequest, `Bad Request: unsupported MCP-Protocol-Version ${JSON.stringify(version.slice(0, 40))}.`);
  }
  if (batch && !allowsBatches(version ?? DEFAULT_VERSION)) {
    return refuse(c, 400, RpcCode.invalidRequest, `Invalid Request: MCP ${version} has no JSON-RPC batches; send one message per request.`);
  }
  const session = await openSession(c);
  if (session instanceof Response) return session;
  for (const item of incoming) if (item.kind === "notification") notice(item.message, session.state);
  if (!incoming.some((item) => item.kind === "request" || item.kind === "invalid")) return c.body(null, 202);
  return respond(c, incoming, batch, session.state, accept, options);
}

/** initialize: a new session bound to the caller's key; its id travels in the Mcp-Session-Id header. */
async function startSession(c: Context<AppEnv>, request: RpcRequest): Promise<Response> {
  let reply: RpcResponse;
  const headers: Record<string, string> = {};
  try {
    const { result } = initialize(request.params);
    headers["Mcp-Session-Id"] = await createSessionId(keyHash(c));
    reply = rpcResult(request.id, result);
  } catch (error) {
    if (!(error instanceof RpcFailure)) throw error;
    reply = rpcError(request.id, error.code, error.message);
  }
  return c.json(reply, 200, headers);
}

/**
 * Runs the requests of one POST at once. The answer is JSON unless a notification (progress, a tool's
 * log) comes before the last response and the client reads SSE: then the notifications stream first.
 */
async function respond(
  c: Context<AppEnv>,
  incoming: Incoming[],
  batch: boolean,
  session: SessionState,
  accept: { json: boolean; sse: boolean },
  transport: TransportOptions,
): Promise<Response> {
  await needRemoteTools(c, toolsNeeded(incoming.flatMap((item) => (item.kind === "request" ? [item.message] : []))));
  const abort = new AbortController();
  const queue = new NotificationQueue(accept.sse);
  let built: ExecuteOptions | undefined;
  let mask: ((text: string) => string) | undefined;
  const exchange: Exchange = {
    tenant: c.var.tenant,
    session,
    requestId: c.var.requestId,
    options: () => (built ??= executionOptions(c)),
    signal: AbortSignal.any([c.req.raw.signal, abort.signal]),
    notify: (method, params) => queue.push(method, params),
    mask: (text) => (mask ??= createTextMasker(Object.values(exchange.options().secrets ?? {})))(text),
    ...(transport.pageSize === undefined ? {} : { pageSize: transport.pageSize }),
    ...(c.var.caller.tools ? { allowed: c.var.caller.tools } : {}),
  };
  const pending: Promise<RpcResponse>[] = [];
  for (const item of incoming) {
    if (item.kind === "request") pending.push(answer(item.message, exchange));
    else if (item.kind === "invalid") pending.push(Promise.resolve(rpcError(item.id, RpcCode.invalidRequest, `Invalid Request: ${item.reason}`)));
  }
  const all = Promise.all(pending);
  const first = await Promise.race([all.then(() => "done" as const), queue.first.then(() => "notified" as const)]);
  if (accept.sse && (first === "notified" || !accept.json)) {
    return sseResponse(queue, all, (reason) => abort.abort(toolError("cancelled", reason)));
  }
  queue.close();
  const responses = await all;
  return c.json(batch ? responses : responses[0]);
}

/** DELETE ends the session: its id is refused from then on and its running calls are aborted. */
export async function handleDelete(c: Context<AppEnv>): Promise<Response> {
  const session = await openSession(c);
  if (session instanceof Response) return session;
  endSession(session.id, toolError("cancelled", "The client ended the MCP session."));
  return c.body(null, 200);
}

/**
 * GET would open a stream for server-initiated messages. toolgate sends none outside a request (no
 * sampling, no list changes within a deployment), so per the transport spec it answers 405.
 */
export function handleGet(c: Context<AppEnv>): Response {
  return refuse(c, 405, RpcCode.badRequest, "Method Not Allowed: this server sends no messages outside a request's response.", {
    Allow: "POST, DELETE",
  });
}
