import { cors as honoCors } from "hono/cors";
import type { Context, MiddlewareHandler } from "hono";
import type { AppEnv } from "../env";
import { USER_HEADER, USER_TOKEN_HEADER } from "../identity/act-as";

/** CORS for the tenant's console origins only; other origins get no Access-Control-Allow-Origin. */
const consoleCors: MiddlewareHandler<AppEnv> = honoCors({
  origin: (origin, c) => ((c as Context<AppEnv>).get("tenant").config.consoleOrigins.includes(origin) ? origin : null),
  allowMethods: ["GET", "POST", "DELETE", "OPTIONS"],
  // The MCP transport's headers, so a console origin can speak MCP from a browser, and the end user a
  // key with actAs acts for. Never Toolgate-Session: ambient credentials stay same-origin (CSRF).
  allowHeaders: [
    "Authorization",
    "Content-Type",
    "Mcp-Session-Id",
    "Mcp-Protocol-Version",
    "Last-Event-ID",
    USER_HEADER,
    USER_TOKEN_HEADER,
  ],
  exposeHeaders: ["X-Request-Id", "Mcp-Session-Id"],
  maxAge: 600,
});

/**
 * A request without an Origin header is no browser's cross-origin request: it needs no CORS headers,
 * only `Vary: Origin` (its answer differs from one to an Origin). Skipping hono's middleware for it
 * spares every API request the response hono's CORS builds before the route and copies after it.
 */
export const cors: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (c.req.method === "OPTIONS" || c.req.header("origin") !== undefined) return consoleCors(c, next);
  c.header("Vary", "Origin", { append: true });
  await next();
  // A route that answered with a Response of its own (not through c.json and the like) did not take it.
  if (!/\borigin\b/i.test(c.res.headers.get("vary") ?? "")) c.header("Vary", "Origin", { append: true });
};
