import { isToolError, toolError } from "../../errors";
import { isPlainObject } from "../../json";
import type { McpClient } from "./client";
import { paramHeaders, type HeaderParam } from "./headers";
import { awaitTask, legacyTasks, modernTasks, TASK_TTL_MS, taskStateOf } from "./tasks";
import type { McpCallContext } from "./wire";

/** What a call needs of a remote tool's definition besides its name. */
export interface RemoteCallSpec {
  remoteName: string;
  /** The server's URL: its host and port name the call's span. */
  url: string;
  /** 2025 `execution.taskSupport`: "required" tools are called as tasks. */
  taskSupport?: string;
  /** 2026 `x-mcp-header` parameters, mirrored into Mcp-Param-* headers. */
  headerParams: readonly HeaderParam[];
}

/** Rounds of a multi round-trip request (input_required with request state only) before giving up. */
const MAX_ROUNDS = 8;

/** Whether a 2025 server lets tools/call be task-augmented (capabilities.tasks.requests.tools.call). */
export function acceptsToolTasks(capabilities: Record<string, unknown>): boolean {
  const tasks = capabilities.tasks;
  const requests = isPlainObject(tasks) ? tasks.requests : undefined;
  const tools = isPlainObject(requests) ? requests.tools : undefined;
  return isPlainObject(tools) && isPlainObject(tools.call);
}

function kindsOf(inputRequests: unknown): string {
  const methods = isPlainObject(inputRequests)
    ? Object.values(inputRequests).map((r) => (isPlainObject(r) ? String(r.method) : "?"))
    : [];
  return [...new Set(methods)].join(", ");
}

async function callLegacy(
  client: McpClient,
  label: string,
  spec: RemoteCallSpec,
  args: unknown,
  ctx: McpCallContext,
  meta: TraceMeta | undefined,
): Promise<unknown> {
  const params = { name: spec.remoteName, arguments: args ?? {}, ...(meta ? { _meta: meta } : {}) };
  if (spec.taskSupport !== "required") return client.request("tools/call", params, ctx);
  if (!acceptsToolTasks(await client.capabilities(ctx))) {
    throw toolError(
      "upstream_error",
      `${label} requires "${spec.remoteName}" to run as a task but does not accept task-augmented tools/call`,
      { retryable: false },
    );
  }
  const created = await client.request("tools/call", { ...params, task: { ttl: TASK_TTL_MS } }, ctx);
  const task = taskStateOf(isPlainObject(created) ? created.task : undefined);
  if (!task)
    throw toolError(
      "upstream_error",
      `${label} answered a task-augmented tools/call for "${spec.remoteName}" without a task`,
      { retryable: false },
    );
  return awaitTask(legacyTasks(client, label), task, ctx, label, spec.remoteName);
}

/**
 * Multi round-trip requests: a round that asks only to be sent again (request state) is sent again;
 * one that asks for sampling, elicitation or roots ends the call with a clear error (toolgate
 * declares none of them, so a conforming server does not ask).
 */
async function callModern(
  client: McpClient,
  label: string,
  spec: RemoteCallSpec,
  args: unknown,
  ctx: McpCallContext,
  meta: TraceMeta | undefined,
): Promise<unknown> {
  const headers = paramHeaders(spec.headerParams, args);
  let retry: Record<string, unknown> = {};
  for (let round = 1; ; round++) {
    const result = await client.request(
      "tools/call",
      { name: spec.remoteName, arguments: args ?? {}, ...retry, ...(meta ? { _meta: meta } : {}) },
      ctx,
      headers,
    );
    const type = isPlainObject(result) ? result.resultType : undefined;
    if (type === "task") {
      const task = taskStateOf(result);
      if (!task)
        throw toolError("upstream_error", `${label} answered tools/call with a malformed task`, { retryable: false });
      return awaitTask(modernTasks(client, label), task, ctx, label, spec.remoteName);
    }
    if (type !== "input_required" || !isPlainObject(result)) return result;
    const kinds = kindsOf(result.inputRequests);
    if (kinds) {
      throw toolError(
        "upstream_error",
        `${label} asked for ${kinds} to run "${spec.remoteName}": toolgate cannot answer these for a remote server`,
        { retryable: false },
      );
    }
    if (typeof result.requestState !== "string" || round >= MAX_ROUNDS) {
      throw toolError(
        "upstream_error",
        `${label} kept asking for another round of "${spec.remoteName}" (${round} rounds)`,
        { retryable: false },
      );
    }
    retry = { requestState: result.requestState };
  }
}

/** W3C trace context in a request's `params._meta` (the OpenTelemetry MCP conventions' propagation). */
type TraceMeta = { traceparent: string; tracestate?: string };

/** The span's error.type for how a tools/call ended: a tool error's code, an isError result's tool_error. */
function errorTypeOf(outcome: { result: unknown } | { error: unknown }): string | undefined {
  if ("error" in outcome) {
    const { error } = outcome;
    return isToolError(error) ? error.code : error instanceof Error ? error.name : "Error";
  }
  return isPlainObject(outcome.result) && outcome.result.isError === true ? "tool_error" : undefined;
}

/**
 * tools/call in the server's era, as a task when it must be; answers the CallToolResult. A traced call
 * makes it a client span (`tools/call {name}`, the OpenTelemetry MCP conventions) whose context the
 * message carries in `params._meta`, so the server's spans continue the call's trace.
 */
export async function callRemoteTool(
  client: McpClient,
  label: string,
  spec: RemoteCallSpec,
  args: unknown,
  ctx: McpCallContext,
): Promise<unknown> {
  const era = await client.era(ctx);
  const url = new URL(spec.url);
  const span = ctx.span?.(`tools/call ${spec.remoteName}`, {
    "mcp.method.name": "tools/call",
    "gen_ai.operation.name": "execute_tool",
    "gen_ai.tool.name": spec.remoteName,
    "network.transport": "tcp",
    "server.address": url.hostname,
    "server.port": url.port ? Number(url.port) : url.protocol === "https:" ? 443 : 80,
    ...(era.kind === "modern" ? { "mcp.protocol.version": era.version } : {}),
  });
  const meta = span && { traceparent: span.traceparent, ...(span.tracestate ? { tracestate: span.tracestate } : {}) };
  try {
    const result =
      era.kind === "modern"
        ? await callModern(client, label, spec, args, ctx, meta)
        : await callLegacy(client, label, spec, args, ctx, meta);
    span?.end(errorTypeOf({ result }));
    return result;
  } catch (error) {
    span?.end(errorTypeOf({ error }));
    throw error;
  }
}
