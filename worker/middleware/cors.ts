import { cors as honoCors } from "hono/cors";
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../env";

/** CORS for the tenant's console origins only; other origins get no Access-Control-Allow-Origin. */
export const cors: MiddlewareHandler<AppEnv> = honoCors({
  origin: (origin, c) => ((c.var as AppEnv["Variables"]).tenant.config.consoleOrigins.includes(origin) ? origin : null),
  allowMethods: ["GET", "POST", "DELETE", "OPTIONS"],
  // The MCP transport's headers, so a console origin can speak MCP from a browser.
  allowHeaders: ["Authorization", "Content-Type", "Mcp-Session-Id", "Mcp-Protocol-Version", "Last-Event-ID"],
  exposeHeaders: ["X-Request-Id", "Mcp-Session-Id"],
  maxAge: 600,
});
