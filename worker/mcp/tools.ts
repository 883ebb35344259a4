import * as v from "valibot";
import { mcp, toCallToolResult, type McpTool } from "../../src/formats/mcp";
import type { Hooks } from "../../src/hooks";
import { RpcCode } from "../../src/mcp/errors";
import type { LogLevel, NotificationMethod, RpcRequest } from "../../src/mcp/messages";
import type { Era } from "../../src/mcp/versions";
import type { ExecuteOptions } from "../../src/options";
import { executeCall } from "../../src/pipeline/execute";
import { type CallRecord, isRunning, resultOfRecord, type Progress } from "../../src/result";
import { toolListing } from "../tenant/listings/listing";
import { precomputedMcp, type McpListing } from "../tenant/listings/precomputed";
import type { Tenant } from "../tenant/tenant";
import { createCallLogger } from "./call-logger";
import { tasksRequired } from "./capabilities";
import { followCall, type FollowTarget } from "./follow";
import { RpcFailure } from "./jsonrpc";
import { taskSupportOf } from "./task-support";
import { createTaskResult, type TaskHost } from "./tasks";
import { runAsking, type LegacyAsker, type RunRound } from "./v2025/legacy-ask";
import { urlElicitationRequired } from "./v2025/url-required";
import type { Envelope } from "./v2026/envelope";
import { inputRequiredResult, openRetry } from "./v2026/input-required";

const DEFAULT_PAGE_SIZE = 100;

const ListParams = v.object({ cursor: v.optional(v.string()) });

/** 2026-07-28 listings say which tools run as tasks (execution.taskSupport), for clients that follow tasks. */
function withTaskSupport(tenant: Tenant, tools: readonly McpTool[]): McpTool[] {
  return tools.map((definition) => {
    const tool = tenant.registry.get(definition.name);
    const support = tool ? taskSupportOf(tool) : "forbidden";
    return support === "forbidden" ? definition : { ...definition, execution: { taskSupport: support } };
  });
}

/** The MCP listing built from the tenant's tools (no precomputed listings, or a view with remote tools). */
function builtMcp(tenant: Tenant, allowed?: ReadonlySet<string>): McpListing {
  const { tools } = toolListing(tenant, mcp, allowed);
  return {
    length: tools.length,
    page: (offset, end, modern) =>
      modern ? withTaskSupport(tenant, tools.slice(offset, end)) : tools.slice(offset, end),
  };
}

/** The cursor is the offset of the next page, opaque to clients. */
export function listTools(
  tenant: Tenant,
  params: unknown,
  pageSize = DEFAULT_PAGE_SIZE,
  allowed?: ReadonlySet<string>,
  modern = false,
): Record<string, unknown> {
  const parsed = v.safeParse(ListParams, params ?? {});
  if (!parsed.success) throw new RpcFailure(RpcCode.invalidParams, "tools/list: cursor must be a string.");
  // A tool whose input is not an object cannot be offered over MCP (GET /v1/tools/mcp lists it as skipped).
  const listed = precomputedMcp(tenant, allowed) ?? builtMcp(tenant, allowed);
  let offset = 0;
  if (parsed.output.cursor !== undefined) {
    offset = /^o[0-9]{1,9}$/.test(parsed.output.cursor) ? Number(parsed.output.cursor.slice(1)) : -1;
    if (offset < 0 || offset > listed.length)
      throw new RpcFailure(RpcCode.invalidParams, "tools/list: the cursor is not one this server gave.");
  }
  const end = offset + pageSize;
  const shown = listed.page(offset, end, modern);
  return end < listed.length ? { tools: shown, nextCursor: `o${end}` } : { tools: shown };
}

/**
 * What one POST's requests need of the remote tools: all of them for tools/list, else the names tools/call asks for.
 */
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
  /** The call's id in the ledger (see v2025/call-ids.ts). */
  callId: string;
  options: ExecuteOptions;
  /** Aborted when the client closes the request's stream (and, for legacy sessions, on DELETE). */
  signal: AbortSignal;
  /** Sends a notification on this request's stream. */
  notify(method: NotificationMethod, params: Record<string, unknown>): void;
  /** The minimum level of the tool's logs sent as notifications/message; undefined sends none. */
  logLevel(): LogLevel | undefined;
  /** Prints the call's one log line (the request's id, the key's name and the user's id with it). */
  logCall(record: CallRecord): void;
  /** Where a call that runs on beyond its answer (detached, auto) is waited for. */
  follow: FollowTarget;
  era: Era;
  /** A 2026-07-28 request's envelope: what its client can be asked (ctx.ask, approval: "user"). */
  envelope?: Envelope;
  /** Set when this request's client follows tasks (2026-07-28 with the tasks extension). */
  tasks?: TaskHost;
  /** A legacy session whose client can be asked (v2025/legacy-ask.ts): ctx.ask asks it on this POST's stream. */
  asker?: LegacyAsker;
  /**
   * A 2025-11-25 client that declared no URL-mode elicitation, of a tenant with `connections`: a call
   * refused until its user connects is answered -32042 (v2025/url-required.ts). The request's origin.
   */
  urlRequiredOrigin?: string;
}

/** notifications/progress for the client's token: only increasing values (the spec requires it), from any source. */
function progressSink(
  token: string | number | undefined,
  notify: CallContext["notify"],
): ((progress: Progress) => void) | undefined {
  if (token === undefined) return undefined;
  let last = -Infinity;
  return (progress) => {
    if (!(progress.progress > last)) return;
    last = progress.progress;
    notify("notifications/progress", { progressToken: token, ...progress });
  };
}

/** The pipeline's progress events of this call, for the sink. */
function progressHooks(sink: ((progress: Progress) => void) | undefined): Hooks[] {
  if (!sink) return [];
  return [{ onEvent: (event) => void (event.type === "call.progress" && sink(event.progress)) }];
}

/**
 * tools/call through the same pipeline as the HTTP API (policy, gates, records, approvals). An unknown
 * tool is a protocol error (-32602); every other failure is an isError result the model can read. A
 * call that runs on beyond its answer (a detached tool, an auto one past detachAfterMs) is waited for
 * while the client stays connected, its progress relayed; the client closing the stream cancels it.
 */
export async function callTool(params: unknown, ctx: CallContext): Promise<Record<string, unknown>> {
  const parsed = v.safeParse(CallParams, params ?? {});
  if (!parsed.success) {
    throw new RpcFailure(RpcCode.invalidParams, "tools/call: params must be { name: string, arguments?: object }.");
  }
  const { name, arguments: args, _meta } = parsed.output;
  const base = ctx.options;
  const tool = base.registry.get(name);
  const support = ctx.era === "modern" && tool ? taskSupportOf(tool) : "forbidden";
  if (support === "required" && !ctx.tasks) throw tasksRequired(`the tool "${name}"`);
  // 2026: the client answers what the tool asks by calling again (v2026/input-required.ts); a legacy
  // client that declared what it answers is asked on this POST's stream, round after round
  // (v2025/legacy-ask.ts).
  // A detached tool run as a task asks in its run: the task waits for the answers (tasks.ts).
  const waits = ctx.tasks !== undefined && support !== "forbidden" && tool?.policy.execution === "detached";
  const retry = ctx.envelope ? await openRetry(params, ctx.envelope, ctx.follow, name, args, waits) : undefined;
  const sink = progressSink(_meta?.progressToken, ctx.notify);
  const hooks = [
    ...(base.hooks === undefined ? [] : Array.isArray(base.hooks) ? base.hooks : [base.hooks]),
    ...progressHooks(sink),
  ];
  const log = createCallLogger(name, base.secrets, ctx);
  const run: RunRound = async (callId, ask, signal) => {
    const ended = await executeCall(
      { id: callId, name, arguments: args ?? {} },
      { ...base, hooks, signal, log, ...(ask ? { ask } : {}) },
    );
    ctx.logCall(ended.record);
    return ended;
  };
  let result = ctx.asker
    ? await runAsking(ctx.callId, run, ctx.asker)
    : await run(ctx.callId, retry?.channel, ctx.signal);
  if (!result.ok && result.error.code === "unknown_tool")
    throw new RpcFailure(RpcCode.invalidParams, result.error.message);
  const asking = retry && (await inputRequiredResult(result, retry, ctx.follow));
  if (asking) return asking;
  // A client that follows tasks gets the call's record as its task once the call goes on beyond this
  // request (detached, auto past detachAfterMs) or waits for an approval; a call that ended is answered.
  if (ctx.tasks && support !== "forbidden" && (isRunning(result) || result.record.status === "pending"))
    return createTaskResult(result.record, ctx.tasks.ttlMs);
  if (isRunning(result)) {
    const record = await followCall(result.callId, ctx.follow, ctx.signal, sink);
    if (record) result = resultOfRecord(record);
  }
  const urlRequired =
    ctx.urlRequiredOrigin === undefined ? undefined : await urlElicitationRequired(result, ctx.urlRequiredOrigin);
  if (urlRequired) throw urlRequired;
  return toCallToolResult(result);
}
