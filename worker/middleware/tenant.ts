import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../env";
import { withRemoteTools } from "../adapters/live";
import { loadTenant } from "../tenant";

/** Puts the tenant (parsed once per isolate) on c.var; a bad config throws ConfigError → JSON 500. */
export const tenant = createMiddleware<AppEnv>(async (c, next) => {
  c.set("tenant", loadTenant(c.env));
  await next();
});

/**
 * Joins the remote MCP servers' current tools into the tenant's registry. Mounted after the key
 * check, so a request without a valid key never makes toolgate list an upstream.
 */
export const remoteTools = createMiddleware<AppEnv>(async (c, next) => {
  c.set("tenant", await withRemoteTools(c.var.tenant, c.env));
  await next();
});
