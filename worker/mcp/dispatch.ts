import * as v from "valibot";
import { toolError } from "../../src/errors";
import type { ExecuteOptions } from "../../src/options";
import { ConfigError } from "../config";
import { logLine } from "../log";
import type { Tenant } from "../tenant";
import {
  isLogLevel,
  LATEST_VERSION,
  isProtocolVersion,
  RpcCode,
  RpcFailure,
  rpcError,
  rpcResult,
  type ProtocolVersion,
  type RpcNotification,
  type RpcRequest,
  type RpcResponse,
} from "./protocol";
import { InFlightCall, inFlightKey, type SessionState } from "./session";
import { callTool, listTools } from "./tools";

/** One POST to /mcp: what its requests share. */
export interface Exchange {
  tenant: Tenant;
  session: SessionState;
  requestId: string;
  /** The pipeline's options for this request (built once, on the first tools/call). */
  options(): ExecuteOptions;
  /** Aborted when the client goes away or the session is deleted. */
  signal: AbortSignal;
  /** A notification on this POST's response stream. */
  notify(method: string, params: Record<string, unknown>): void;
  /** Masks the tenant's secrets in text that is logged. */
  mask(text: string): string;
  pageSize?: number;
  /** The caller's tool allow-list: tools/list shows only these. */
  allowed?: ReadonlySet<string>;
}

export const SERVER_INFO = { name: "toolgate", title: "toolgate", version: "0.1.0" } as const;

const CAPABILITIES = {
  // No notifications/tools/list_changed is ever sent, so none is promised. The list changes with a
  // deploy (new isolates: a client whose session is then unknown initializes again and lists afresh)
  // or when a remote MCP adapter's list changes, which clients see on their next tools/list.
  tools: { listChanged: false },
  logging: {},
};

const InitializeParams = v.object({
  protocolVersion: v.string(),
  capabilities: v.optional(v.record(v.string(), v.unknown())),
  clientInfo: v.optional(v.looseObject({ name: v.string() })),
});

/** initialize: the client's version when this server speaks it, else the newest (the client decides). */
export function initialize(params: unknown): { version: ProtocolVersion; result: Record<string, unknown> } {
  const parsed = v.safeParse(InitializeParams, params ?? {});
  if (!parsed.success) throw new RpcFailure(RpcCode.invalidParams, "initialize: params must hold protocolVersion, capabilities and clientInfo.");
  const asked = parsed.output.protocolVersion;
  const version = isProtocolVersion(asked) ? asked : LATEST_VERSION;
  return { version, result: { protocolVersion: version, capabilities: CAPABILITIES, serverInfo: SERVER_INFO } };
}

async function run(request: RpcRequest, exchange: Exchange): Promise<Record<string, unknown>> {
  switch (request.method) {
    case "ping":
      return {};
    case "tools/list":
      return listTools(exchange.tenant, request.params, exchange.pageSize, exchange.allowed);
    case "tools/call":
      return runCall(request, exchange);
    case "logging/setLevel": {
      const level = request.params?.level;
      if (!isLogLevel(level)) throw new RpcFailure(RpcCode.invalidParams, `logging/setLevel: unknown level ${JSON.stringify(level)}.`);
      exchange.session.level = level;
      return {};
    }
    case "initialize":
      throw new RpcFailure(RpcCode.invalidRequest, "initialize must be sent alone, not in a batch.");
    default:
      throw new RpcFailure(RpcCode.methodNotFound, `Method not found: ${request.method}. This server offers tools and logging.`);
  }
}

/** A tools/call is registered in the session while it runs, so notifications/cancelled can abort it. */
async function runCall(request: RpcRequest, exchange: Exchange): Promise<Record<string, unknown>> {
  const key = inFlightKey(request.id);
  const call = new InFlightCall();
  const { inFlight } = exchange.session;
  inFlight.get(key)?.cancel(toolError("cancelled", "A new request reused this request id."));
  inFlight.set(key, call);
  try {
    return await callTool(request.params, {
      options: exchange.options(),
      signal: AbortSignal.any([exchange.signal, call.signal]),
      notify: exchange.notify,
      logLevel: () => exchange.session.level,
      requestId: exchange.requestId,
    });
  } finally {
    call.stop();
    if (inFlight.get(key) === call) inFlight.delete(key);
  }
}

/** Answers one request; never throws. */
export async function answer(request: RpcRequest, exchange: Exchange): Promise<RpcResponse> {
  try {
    return rpcResult(request.id, await run(request, exchange));
  } catch (error) {
    if (error instanceof RpcFailure) return rpcError(request.id, error.code, error.message);
    if (error instanceof ConfigError) return rpcError(request.id, RpcCode.internalError, error.message);
    // A bug, not an outcome: logged (masked) and answered without its details.
    logLine({ msg: "mcp_internal_error", requestId: exchange.requestId, method: request.method, error: exchange.mask(String(error)) });
    return rpcError(request.id, RpcCode.internalError, `Internal error (request ${exchange.requestId}).`);
  }
}

const CancelledParams = v.object({ requestId: v.union([v.string(), v.number()]), reason: v.optional(v.string()) });

/** Notifications: cancellation aborts a running call of this isolate; the rest need nothing. */
export function notice(notification: RpcNotification, session: SessionState): void {
  if (notification.method !== "notifications/cancelled") return;
  const parsed = v.safeParse(CancelledParams, notification.params ?? {});
  if (!parsed.success) return;
  const { requestId, reason } = parsed.output;
  const why = reason ? `: ${reason.slice(0, 200)}` : ".";
  session.inFlight.get(inFlightKey(requestId))?.cancel(toolError("cancelled", `The client cancelled the call${why}`));
}
