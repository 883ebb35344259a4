import { Hono } from "../hono-lazy";
import type { AppEnv } from "../env";
import { requireKey, requireScope } from "../middleware/auth";
import { hostGuard } from "../mcp/transport/guard";
import { remoteTools } from "../middleware/tenant";
import { endpointOfPath, requireEndpointAccess } from "../endpoints/access";
import { handleDelete, handleGet, handleOtherMethod, handlePost, type TransportOptions } from "../mcp/transport/http";

/**
 * TOOLGATE_MCP_PAGE_SIZE: tools per tools/list page (1-1000); TOOLGATE_MCP_ASK_TIMEOUT_SECONDS: how
 * long a legacy session's call waits for its client's answer (0.1-3600); TOOLGATE_MCP_KEEPALIVE_SECONDS:
 * silence on an SSE answer before a keepalive comment (0.05-300). Unset or invalid keeps the default.
 */
function transportOptions(env: Record<string, unknown>): TransportOptions {
  const pageSize = Number(env.TOOLGATE_MCP_PAGE_SIZE);
  const askMs = secondsVar(env.TOOLGATE_MCP_ASK_TIMEOUT_SECONDS, 0.1, 3600);
  const keepaliveMs = secondsVar(env.TOOLGATE_MCP_KEEPALIVE_SECONDS, 0.05, 300);
  return {
    ...(Number.isInteger(pageSize) && pageSize >= 1 && pageSize <= 1000 ? { pageSize } : {}),
    ...(askMs === undefined ? {} : { askTimeoutMs: askMs }),
    ...(keepaliveMs === undefined ? {} : { keepaliveMs }),
  };
}

/** A variable in seconds within [min, max], as milliseconds; undefined when unset or out of range. */
function secondsVar(value: unknown, min: number, max: number): number | undefined {
  const seconds = Number(value);
  return value !== undefined && seconds >= min && seconds <= max ? Math.round(seconds * 1000) : undefined;
}

/**
 * The tenant's registry as an MCP server (Streamable HTTP) at /mcp, and each curated endpoint's
 * selection at /mcp/<name> (worker/endpoints/). Host/Origin are checked before the key, so a rebinding
 * page learns nothing; the key needs the "call" scope, as for POST /v1/calls, and an endpoint's leave.
 */
export const mcp = new Hono<AppEnv>()
  .use("/", hostGuard, requireKey, requireScope("call"), remoteTools)
  .use("/:endpoint", hostGuard, endpointOfPath, requireKey, requireScope("call"), requireEndpointAccess, remoteTools);
for (const path of ["/", "/:endpoint"]) {
  mcp
    .post(path, (c) => handlePost(c, transportOptions(c.env)))
    .get(path, handleGet)
    .delete(path, handleDelete)
    .all(path, handleOtherMethod);
}
