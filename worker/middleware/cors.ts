import { cors as honoCors } from "hono/cors";
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../env";

/** CORS for the tenant's console origins only; other origins get no Access-Control-Allow-Origin. */
export const cors: MiddlewareHandler<AppEnv> = honoCors({
  origin: (origin, c) => ((c.var as AppEnv["Variables"]).tenant.config.consoleOrigins.includes(origin) ? origin : null),
  allowMethods: ["GET", "POST", "OPTIONS"],
  allowHeaders: ["Authorization", "Content-Type"],
  exposeHeaders: ["X-Request-Id"],
  maxAge: 600,
});
