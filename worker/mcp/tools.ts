import * as v from "valibot";
import { executeCall } from "../../src/pipeline/execute";
import { mcp, toCallToolResult } from "../../src/formats/mcp";
import type { Hooks } from "../../src/hooks";
import type { ExecuteOptions } from "../../src/options";
import { toolListing } from "../listing";
import { logCall } from "../log";
import type { Tenant } from "../tenant";
import { createCallLogger } from "./call-logger";
import { RpcCode, RpcFailure, type LogLevel, type RpcRequest } from "./protocol";

const DEFAULT_PAGE_SIZE = 100;

const ListParams = v.object({ cursor: v.optional(v.string()) });

/** The cursor is the offset of the next page, opaque to clients. */
export function listTools(tenant: Tenant, params: unknown, pageSize = DEFAULT_PAGE_SIZE, allowed?: ReadonlySet<string>): Record<string, unknown> {
  const parsed = v.safeParse(ListParams, params ?? {});
  if (!parsed.success) throw new RpcFailure(RpcCode.invalidParams, "tools/list: cursor must be a string.");
  // A tool whose input is not an object cannot be offered over MCP (GET /v1/tools/mcp lists it as skipped).
  const { tools } = toolListing(tenant, mcp, allowed);
  let offset = 0;
  if (parsed.output.cursor !== undefined) {
    offset = /^o[0-9]{1,9}$/.test(parsed.output.cursor) ? Number(parsed.output.cursor.slice(1)) : -1;
    if (offset < 0 || offset > tools.length) throw new RpcFailure(RpcCode.invalidParams, "tools/list: the cursor is not one this server gave.");
  }
  const end = offset + pageSize;
  return end < tools.length ? { tools: tools.slice(offset, end), nextCursor: `o${end}` } : { tools: tools.slice(offset) };
}

/** What one POST's requests need of the remote tools: all of them for tools/list, else the names tools/call asks for. */
export function toolsNeeded(requests: readonly RpcRequest[]): "all" | string[] {
  if (requests.some((request) => request.method === "tools/list")) return "all";
  const names = requests.filter((request) => request.method === "tools/call").map((request) => request.params?.name);
  return names.filter((name): name is string => typeof name === "string");
}

const CallParams = v.object({
  name: v.string(),
  arguments: v.optional(v.record(v.string(), v.unknown())),
  _meta: v.optional(v.looseObject({ progressToken: v.optional(v.union([v.string(), v.number()])) })),
});

export interface CallContext {
  options: ExecuteOptions;
  /** Aborted by notifications/cancelled, DELETE of the session, or the client going away. */
  signal: AbortSignal;
  /** Sends a notification on this request's stream. */
  notify(method: string, params: Record<string, unknown>): void;
  /** The session's minimum log level. */
  logLevel(): LogLevel;
  /** The HTTP request's id, for the call's log line. */
  requestId: string;
}

/** Progress events of this call → notifications/progress, only increasing values (the spec requires it). */
function progressHooks(token: string | number | undefined, notify: CallContext["notify"]): Hooks[] {
  if (token === undefined) return [];
  let last = -Infinity;
  return [
    {
      onEvent(event) {
        if (event.type !== "call.progress" || !(event.progress.progress > last)) return;
        last = event.progress.progress;
        notify("notifications/progress", { progressToken: token, ...event.progress });
      },
    },
  ];
}

/**
 * tools/call through the same pipeline as the HTTP API (policy, gates, records, approvals). An unknown
 * tool is a protocol error (-32602); every other failure is an isError result the model can read.
 */
export async function callTool(params: unknown, ctx: CallContext): Promise<Record<string, unknown>> {
  const parsed = v.safeParse(CallParams, params ?? {});
  if (!parsed.success) {
    throw new RpcFailure(RpcCode.invalidParams, "tools/call: params must be { name: string, arguments?: object }.");
  }
  const { name, arguments: args, _meta } = parsed.output;
  const base = ctx.options;
  const hooks = [...(base.hooks === undefined ? [] : Array.isArray(base.hooks) ? base.hooks : [base.hooks]), ...progressHooks(_meta?.progressToken, ctx.notify)];
  const result = await executeCall(
    { id: `mcp-${crypto.randomUUID()}`, name, arguments: args ?? {} },
    { ...base, hooks, signal: ctx.signal, log: createCallLogger(name, base.secrets, ctx) },
  );
  logCall(ctx.requestId, result.record);
  if (!result.ok && result.error.code === "unknown_tool") throw new RpcFailure(RpcCode.invalidParams, result.error.message);
  return toCallToolResult(result);
}
