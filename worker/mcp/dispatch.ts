import { RpcCode } from "../../src/mcp/errors";
import {
  isLogLevel,
  type LogLevel,
  type NotificationMethod,
  type RequestId,
  type RequestMethod,
  type RpcRequest,
  type RpcResponse,
} from "../../src/mcp/messages";
import { META_KEYS } from "../../src/mcp/meta";
import type { Era } from "../../src/mcp/versions";
import type { ExecuteOptions } from "../../src/options";
import type { CallRecord } from "../../src/result";
import { ConfigError } from "../errors";
import { logLine } from "../log";
import type { Tenant } from "../tenant/tenant";
import { SERVER_INFO, tasksRequired } from "./capabilities";
import type { FollowTarget } from "./follow";
import { rpcError, RpcFailure, rpcResult } from "./jsonrpc";
import { cancelTask, getTask, updateTask, type TaskHost } from "./tasks";
import { callTool, listTools } from "./tools";
import type { LegacyAsker } from "./v2025/legacy-ask";
import { discover } from "./v2026/discover";
import type { Envelope } from "./v2026/envelope";

/** One request to /mcp: what its handler needs, whichever era it speaks. */
export interface Exchange {
  era: Era;
  tenant: Tenant;
  requestId: string;
  /** Prints a call's one log line, naming this request, its key and its user. */
  logCall(record: CallRecord): void;
  /** The pipeline's options for this request (built once, on the first tools/call). */
  options(): ExecuteOptions;
  /** Aborted when the client goes away. */
  signal: AbortSignal;
  /** A notification on this POST's response stream. */
  notify(method: NotificationMethod, params: Record<string, unknown>): void;
  /** A request to the client on this POST's response stream (a legacy session asking); false when it cannot go. */
  send(request: RpcRequest): boolean;
  /** The client reads this POST's answer as a stream (only then can it be sent requests). */
  streams: boolean;
  /** A legacy session whose client declared what it answers: how its calls ask it (v2025/legacy-ask.ts). */
  asks?: SessionAsks;
  /** A 2025-11-25 session whose client declared no URL-mode elicitation: the request's origin (tools.ts). */
  urlRequiredOrigin?: string;
  /** Masks the tenant's secrets in text that is logged. */
  mask(text: string): string;
  pageSize?: number;
  /** The minimum level of tools' logs to send; undefined sends none. */
  logLevel(): LogLevel | undefined;
  /** The ledger id of the call a tools/call with this JSON-RPC id makes. */
  callId(id: RequestId): string;
  follow: FollowTarget;
  /** A modern request's _meta envelope (its capabilities decide what it may be asked for). */
  envelope?: Envelope;
  /** A legacy session's logging/setLevel. */
  setLevel?(level: LogLevel): Promise<void>;
  /** The caller's tool allow-list: tools/list shows only these. */
  allowed?: ReadonlySet<string>;
  /** 2026-07-28 requests whose client declared the tasks extension: how long a task's record is kept, where it runs. */
  tasks?: TaskHost;
}

/** What a legacy session's calls need to ask its client, besides the POST's own stream. */
export type SessionAsks = Omit<LegacyAsker, "send" | "signal" | "waitUntil">;

/** 2026-07-28 caching hints of cacheable results (server/utilities/caching): they are the tenant's, behind its keys. */
const CACHE_HINTS = { "server/discover": 300_000, "tools/list": 60_000 } as Record<string, number>;

/** A method: the eras that have it, and its handler (throws RpcFailure for protocol errors). */
interface Method {
  eras: readonly Era[];
  run(request: RpcRequest, exchange: Exchange): Record<string, unknown> | Promise<Record<string, unknown>>;
}

const BOTH: readonly Era[] = ["legacy", "modern"];

/**
 * What /mcp answers, per era. ping and logging/setLevel are gone from 2026-07-28 (logs follow each
 * request's _meta); server/discover is 2026's. A method missing here is -32601 (and 404 in 2026).
 */
const METHODS: { readonly [name in RequestMethod]?: Method } = {
  "server/discover": { eras: ["modern"], run: discover },
  "tools/list": {
    eras: BOTH,
    run: (request, exchange) =>
      listTools(exchange.tenant, request.params, exchange.pageSize, exchange.allowed, exchange.era === "modern"),
  },
  "tools/call": { eras: BOTH, run: runCall },
  ping: { eras: ["legacy"], run: () => ({}) },
  "logging/setLevel": { eras: ["legacy"], run: setLevel },
  "tasks/get": {
    eras: ["modern"],
    run: (request, exchange) => getTask(request.params, exchange.follow, tasksOf(request, exchange).ttlMs),
  },
  "tasks/cancel": {
    eras: ["modern"],
    run: (request, exchange) => tasksOf(request, exchange) && cancelTask(request.params, exchange.follow),
  },
  "tasks/update": {
    eras: ["modern"],
    run: (request, exchange) => updateTask(request.params, exchange.follow, tasksOf(request, exchange)),
  },
};

/** The task methods answer only requests whose client declared the extension (-32021 otherwise). */
function tasksOf(request: RpcRequest, exchange: Exchange): TaskHost {
  if (!exchange.tasks) throw tasksRequired(request.method);
  return exchange.tasks;
}

/** The handler of a method in an era, if it has one. */
export function methodOf(name: string, era: Era): Method | undefined {
  const method = Object.hasOwn(METHODS, name) ? METHODS[name as RequestMethod] : undefined;
  return method?.eras.includes(era) ? method : undefined;
}

async function setLevel(request: RpcRequest, exchange: Exchange): Promise<Record<string, unknown>> {
  const level = request.params?.level;
  if (!isLogLevel(level))
    throw new RpcFailure(RpcCode.invalidParams, `logging/setLevel: unknown level ${JSON.stringify(level)}.`);
  await exchange.setLevel?.(level);
  return {};
}

function runCall(request: RpcRequest, exchange: Exchange): Promise<Record<string, unknown>> {
  return callTool(request.params, {
    callId: exchange.callId(request.id),
    options: exchange.options(),
    signal: exchange.signal,
    notify: exchange.notify,
    logLevel: exchange.logLevel,
    logCall: exchange.logCall,
    follow: exchange.follow,
    ...(exchange.asks && exchange.streams ? { asker: askerOf(exchange.asks, exchange) } : {}),
    ...(exchange.tasks ? { tasks: exchange.tasks } : {}),
    ...(exchange.urlRequiredOrigin === undefined ? {} : { urlRequiredOrigin: exchange.urlRequiredOrigin }),
    ...(exchange.envelope ? { envelope: exchange.envelope } : {}),
    era: exchange.era,
  });
}

/** A legacy session's asking over this POST's stream (only a POST that reads SSE can be sent requests). */
function askerOf(asks: SessionAsks, exchange: Exchange): LegacyAsker {
  const waitUntil = exchange.follow.waitUntil;
  return { ...asks, send: exchange.send, signal: exchange.signal, ...(waitUntil ? { waitUntil } : {}) };
}

/**
 * A result in its era's shape: 2026-07-28 results carry their resultType (a handler's own, such as
 * a multi-round-trip one, is kept), the server's identity in _meta, and caching hints where due.
 */
function shaped(method: string, result: Record<string, unknown>, era: Era): Record<string, unknown> {
  if (era === "legacy") return result;
  const ttlMs = CACHE_HINTS[method];
  const meta =
    typeof result._meta === "object" && result._meta !== null ? (result._meta as Record<string, unknown>) : {};
  return {
    resultType: "complete",
    ...result,
    ...(ttlMs === undefined ? {} : { ttlMs, cacheScope: "private" }),
    _meta: { ...meta, [META_KEYS.serverInfo]: SERVER_INFO },
  };
}

/** Answers one request of the exchange's era; never throws. */
export async function answer(request: RpcRequest, exchange: Exchange): Promise<RpcResponse> {
  try {
    if (request.method === "initialize")
      throw new RpcFailure(RpcCode.invalidRequest, "initialize must be sent alone, not in a batch.");
    const method = methodOf(request.method, exchange.era);
    if (!method)
      throw new RpcFailure(
        RpcCode.methodNotFound,
        `Method not found: ${request.method}. This server offers tools and logging.`,
      );
    return rpcResult(request.id, shaped(request.method, await method.run(request, exchange), exchange.era));
  } catch (error) {
    if (error instanceof RpcFailure) return rpcError(request.id, error.code, error.message, error.data);
    if (error instanceof ConfigError) return rpcError(request.id, RpcCode.internalError, error.message);
    // A bug, not an outcome: logged (masked) and answered without its details.
    logLine({
      msg: "mcp_internal_error",
      requestId: exchange.requestId,
      method: request.method,
      error: exchange.mask(String(error)),
    });
    return rpcError(request.id, RpcCode.internalError, `Internal error (request ${exchange.requestId}).`);
  }
}
