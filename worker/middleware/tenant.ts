import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../env";
import { loadTenant } from "../tenant";

/** Puts the tenant (parsed once per isolate) on c.var; a bad config throws ConfigError → JSON 500. */
export const tenant = createMiddleware<AppEnv>(async (c, next) => {
  c.set("tenant", loadTenant(c.env));
  await next();
});
