import type { Context } from "hono";
import type { CallSurface } from "../src/contract/surface";
import type { AppEnv } from "./env";

/**
 * The execution contexts of service-binding calls (ToolgateService marks the one it hands the app).
 * A mark no HTTP client can forge, unlike a header or a host name.
 */
const bindingContexts = new WeakSet<object>();

export function markBindingContext(ctx: ExecutionContext): ExecutionContext {
  bindingContexts.add(ctx);
  return ctx;
}

/** Where this request's calls came in: a service binding, the MCP endpoint, or the HTTP API. */
export function surfaceOf(c: Context<AppEnv>): CallSurface {
  if (c.req.path === "/mcp" || c.req.path.startsWith("/mcp/")) return "mcp";
  let ctx: object | undefined;
  try {
    ctx = c.executionCtx;
  } catch {
    ctx = undefined; // app.request() in tests: no execution context
  }
  return ctx && bindingContexts.has(ctx) ? "binding" : "http";
}
