import { Hono } from "../hono-lazy";
import type { AppEnv } from "../env";
import { requireKey, requireScope } from "../middleware/auth";
import { hostGuard } from "../mcp/guard";
import { remoteTools } from "../middleware/tenant";
import { handleDelete, handleGet, handlePost, type TransportOptions } from "../mcp/transport";

/** TOOLGATE_MCP_PAGE_SIZE: tools per tools/list page (1-1000); unset or invalid keeps the default. */
function transportOptions(value: unknown): TransportOptions {
  const n = Number(value);
  return Number.isInteger(n) && n >= 1 && n <= 1000 ? { pageSize: n } : {};
}

/**
 * The tenant's registry as an MCP server (Streamable HTTP). Host/Origin are checked before the key,
 * so a rebinding page learns nothing; the key needs the "call" scope, as for POST /v1/calls.
 */
export const mcp = new Hono<AppEnv>()
  .use(hostGuard, requireKey, requireScope("call"), remoteTools)
  .post("/", (c) => handlePost(c, transportOptions(c.env.TOOLGATE_MCP_PAGE_SIZE)))
  .get("/", handleGet)
  .delete("/", handleDelete);
