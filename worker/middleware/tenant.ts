import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../env";
import { withRemoteTools } from "../adapters/live";
import { loadTenant } from "../tenant";

/**
 * Puts the tenant (parsed once per isolate, with its remote MCP servers' current tools) on c.var;
 * a bad config throws ConfigError → JSON 500.
 */
export const tenant = createMiddleware<AppEnv>(async (c, next) => {
  c.set("tenant", await withRemoteTools(loadTenant(c.env), c.env));
  await next();
});
