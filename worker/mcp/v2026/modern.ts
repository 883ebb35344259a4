import type { Context } from "hono";
import { RpcCode, unsupportedVersionData } from "../../../src/mcp/errors";
import { isModernVersion } from "../../../src/mcp/versions";
import type { AppEnv } from "../../env";
import { tenantLedger } from "../../ledger/address";
import { isolateCallId } from "../../ledger/isolate-shard";
import { settingsFromEnv } from "../../ledger/settings";
import { needRemoteTools } from "../../middleware/tenant";
import { tenantRunners } from "../../runner/address";
import { methodOf } from "../dispatch";
import { rpcError } from "../jsonrpc";
import { declaresTasks } from "../capabilities";
import type { TaskHost } from "../tasks";
import type { Refusal, Route } from "../transport/classify";
import type { McpHeaders } from "../transport/headers";
import { respond, type Accepts, type RespondOptions } from "../transport/respond";
import { checkParamHeaders, checkStandardHeaders } from "./headers";

/**
 * The 2026-07-28 era: every POST stands alone. Its _meta says which revision it speaks, what the
 * client can do and how much log it wants; nothing is kept between requests, so any isolate serves
 * any request. Closing a request's stream cancels it.
 */

/** Where this tenant's tasks are kept (their records' retention) and run again once answered (their Runners). */
function taskHost(c: Context<AppEnv>): TaskHost {
  const ttlMs = settingsFromEnv(c.env as unknown as Record<string, unknown>).retentionMs;
  return c.env.RUNNERS ? { ttlMs, runners: tenantRunners(c.env, c.var.tenant.name) } : { ttlMs };
}

/**
 * A fresh id for a call no other request needs to find (a 2026 request is cancelled by closing its
 * stream), on this isolate's ledger shard (isolate-shard.ts).
 */
function newCallId(c: Context<AppEnv>): () => string {
  const ledger = tenantLedger(c.env, c.var.tenant.name);
  return () => isolateCallId(ledger, "mcp-");
}

export function refusal(c: Context<AppEnv>, refused: Refusal): Response {
  return c.json(rpcError(refused.id, refused.code, refused.message, refused.data), refused.status);
}

type ModernRoute = Extract<Route, { era: "modern" }>;

/**
 * A modern POST, checked rung by rung as the spec orders them: the revision is served (-32022), the
 * standard headers are there and agree (-32020), the method exists in this revision (404, -32601),
 * a tool's x-mcp-header arguments have their headers (-32020); then it runs.
 */
export async function serveModern(
  c: Context<AppEnv>,
  route: ModernRoute,
  headers: McpHeaders,
  accept: Accepts,
  options: RespondOptions,
): Promise<Response> {
  // 2026-07-28 defines no client notification over HTTP (closing the stream is the cancel): accepted, nothing to do.
  if (route.kind === "notification") return c.body(null, 202);
  const { message: request, envelope } = route;
  if (!isModernVersion(envelope.version)) {
    const data = unsupportedVersionData(envelope.version);
    return refusal(c, {
      status: 400,
      code: RpcCode.unsupportedVersion,
      message: "Unsupported protocol version",
      data,
      id: request.id,
    });
  }
  const headerProblem = checkStandardHeaders(request, headers);
  if (headerProblem) return refusal(c, headerProblem);
  if (!methodOf(request.method, "modern")) {
    return refusal(c, {
      status: 404,
      code: RpcCode.methodNotFound,
      message: `Method not found: ${request.method} (not part of MCP ${envelope.version} here).`,
      id: request.id,
    });
  }
  if (request.method === "tools/call" && typeof request.params?.name === "string") {
    const tool = (await needRemoteTools(c, [request.params.name])).registry.get(request.params.name);
    const paramProblem = tool && checkParamHeaders(request, tool.inputSchema, c.req.raw.headers);
    if (paramProblem) return refusal(c, paramProblem);
  }
  return respond(
    c,
    [{ kind: "request", message: request }],
    false,
    accept,
    {
      era: "modern",
      envelope,
      logLevel: () => envelope.logLevel,
      callId: newCallId(c),
      ...(declaresTasks(envelope) ? { tasks: taskHost(c) } : {}),
    },
    options,
  );
}
