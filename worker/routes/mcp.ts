import { Hono } from "../hono-lazy";
import type { AppEnv } from "../env";
import { requireKey, requireScope } from "../middleware/auth";
import { hostGuard } from "../mcp/guard";
import { remoteTools } from "../middleware/tenant";
import { handleDelete, handleGet, handlePost, type TransportOptions } from "../mcp/transport";

/**
 * TOOLGATE_MCP_PAGE_SIZE: tools per tools/list page (1-1000); TOOLGATE_MCP_ASK_TIMEOUT_SECONDS: how
 * long a legacy session's call waits for its client's answer (0.1-3600). Unset or invalid keeps the default.
 */
function transportOptions(env: Record<string, unknown>): TransportOptions {
  const pageSize = Number(env.TOOLGATE_MCP_PAGE_SIZE);
  const askSeconds = Number(env.TOOLGATE_MCP_ASK_TIMEOUT_SECONDS);
  return {
    ...(Number.isInteger(pageSize) && pageSize >= 1 && pageSize <= 1000 ? { pageSize } : {}),
    ...(env.TOOLGATE_MCP_ASK_TIMEOUT_SECONDS !== undefined && askSeconds >= 0.1 && askSeconds <= 3600 ? { askTimeoutMs: Math.round(askSeconds * 1000) } : {}),
  };
}

/**
 * The tenant's registry as an MCP server (Streamable HTTP). Host/Origin are checked before the key,
 * so a rebinding page learns nothing; the key needs the "call" scope, as for POST /v1/calls.
 */
export const mcp = new Hono<AppEnv>()
  .use(hostGuard, requireKey, requireScope("call"), remoteTools)
  .post("/", (c) => handlePost(c, transportOptions(c.env)))
  .get("/", handleGet)
  .delete("/", handleDelete);
