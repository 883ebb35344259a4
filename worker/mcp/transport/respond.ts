import type { Context } from "hono";
import { toolError } from "../../../src/errors";
import { createTextMasker } from "../../../src/mask";
import { RpcCode } from "../../../src/mcp/errors";
import type { RpcResponse } from "../../../src/mcp/messages";
import type { ExecuteOptions } from "../../../src/options";
import type { AppEnv } from "../../env";
import { unparkCancelled } from "../../connections/resume";
import { executionOptions, waitUntilOf } from "../../execution";
import { logCall } from "../../log";
import { tenantLedger } from "../../ledger/address";
import { viewerOf } from "../../ledger/viewer";
import { needListing, needRemoteTools } from "../../middleware/tenant";
import { answer, type Exchange } from "../dispatch";
import { rpcError, type Incoming } from "../jsonrpc";
import { toolsNeeded } from "../tools";
import { listedTools } from "../../search/mode";
import { NotificationQueue, sseResponse } from "./stream";

/** What the client can read: a missing Accept or a wildcard counts as both. */
export interface Accepts {
  json: boolean;
  sse: boolean;
}

export function accepted(header: string | undefined): Accepts {
  const value = (header ?? "*/*").toLowerCase();
  const any = value.includes("*/*");
  return { json: any || value.includes("application/json"), sse: any || value.includes("text/event-stream") };
}

/** What differs between the eras in an exchange; respond() makes the rest. */
export type EraParts = Pick<Exchange, "era" | "logLevel" | "callId" | "envelope" | "setLevel" | "tasks" | "asks">;

export interface RespondOptions {
  pageSize?: number;
  /** How long a legacy session's call waits for its client's answer (v2025/legacy-ask.ts). */
  askTimeoutMs?: number;
  /** Silence on an SSE answer before a keepalive comment (stream.ts). */
  keepaliveMs?: number;
}

/** A 2026-07-28 error that the spec gives its own HTTP status even when a handler raised it. */
function statusOf(responses: readonly RpcResponse[]): 200 | 400 {
  return responses.length === 1 &&
    "error" in responses[0]! &&
    responses[0].error.code === RpcCode.missingClientCapability
    ? 400
    : 200;
}

/**
 * Runs the requests of one POST at once. The answer is JSON unless a notification (progress, a tool's
 * log) comes before the last response and the client reads SSE: then the notifications stream first.
 */
export async function respond(
  c: Context<AppEnv>,
  incoming: readonly Incoming[],
  batch: boolean,
  accept: Accepts,
  parts: EraParts,
  options: RespondOptions,
): Promise<Response> {
  const needed = toolsNeeded(incoming.flatMap((item) => (item.kind === "request" ? [item.message] : [])));
  await (needed === "all" ? needListing(c) : needRemoteTools(c, needed));
  adoptTraceContext(c, incoming);
  const abort = new AbortController();
  const queue = new NotificationQueue(accept.sse);
  let built: ExecuteOptions | undefined;
  let mask: ((text: string) => string) | undefined;
  const waitUntil = waitUntilOf(c);
  // tools/list shows what the caller may use, or in search mode its pinned tools and the search tool.
  const listed = listedTools(c.var.tenant, c.var.caller);
  const exchange: Exchange = {
    ...parts,
    tenant: c.var.tenant,
    requestId: c.var.requestId,
    logCall: (record) => logCall(c.var.requestId, record, c.var.caller.keyName, c.var.caller.user?.id),
    options: () => (built ??= executionOptions(c)),
    signal: AbortSignal.any([c.req.raw.signal, abort.signal]),
    notify: (method, params) => queue.push(method, params),
    send: (message) => queue.send(message),
    streams: accept.sse,
    mask: (text) => (mask ??= createTextMasker(Object.values(exchange.options().secrets ?? {})))(text),
    follow: {
      ledger: tenantLedger(c.env, c.var.tenant.name),
      viewer: viewerOf(c.var.caller),
      ...(waitUntil ? { waitUntil } : {}),
      cancelled: (entry) => unparkCancelled(c.env, c.var.tenant, entry),
    },
    ...(options.pageSize === undefined ? {} : { pageSize: options.pageSize }),
    ...(listed ? { allowed: listed } : {}),
  };
  const pending: Promise<RpcResponse>[] = [];
  for (const item of incoming) {
    if (item.kind === "request") pending.push(answer(item.message, exchange));
    else if (item.kind === "invalid")
      pending.push(Promise.resolve(rpcError(item.id, RpcCode.invalidRequest, `Invalid Request: ${item.reason}`)));
    else if (item.kind === "refused")
      pending.push(Promise.resolve(rpcError(null, item.refusal.code, item.refusal.message)));
  }
  const all = Promise.all(pending);
  const first = await Promise.race([all.then(() => "done" as const), queue.first.then(() => "notified" as const)]);
  if (accept.sse && (first === "notified" || !accept.json)) {
    // A client that closes the stream cancels what it was waiting for (2026: that is how it cancels).
    return sseResponse(
      queue,
      all,
      (reason) => abort.abort(toolError("cancelled", reason)),
      { "X-Accel-Buffering": "no" },
      options.keepaliveMs,
    );
  }
  queue.close();
  const responses = await all;
  return c.json(batch ? responses : responses[0], parts.era === "modern" ? statusOf(responses) : 200);
}

/**
 * MCP carries W3C trace context in a request's `params._meta` (`traceparent`, `tracestate`): the first
 * request naming one continues the caller's trace, before the HTTP header's.
 */
function adoptTraceContext(c: Context<AppEnv>, incoming: readonly Incoming[]): void {
  const tracer = c.var.tracer;
  if (!tracer) return;
  for (const item of incoming) {
    if (item.kind !== "request") continue;
    const meta = (item.message.params as { _meta?: Record<string, unknown> } | undefined)?._meta;
    if (meta && tracer.adopt(meta.traceparent, meta.tracestate)) return;
  }
}
