import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../env";

const HEADER = "X-Request-Id";

/**
 * The request's id, as hono/request-id makes it: the client's X-Request-Id when it is at most 255 word
 * characters, `-` or `=`, else a new UUID; set on c.var and on the answer.
 */
export function assignRequestId(c: Context<AppEnv>): void {
  let id = c.req.header(HEADER);
  if (!id || id.length > 255 || /[^\w\-=]/.test(id)) id = crypto.randomUUID();
  c.set("requestId", id);
  c.header(HEADER, id);
}

/** assignRequestId for every route. */
export const requestId = createMiddleware<AppEnv>(async (c, next) => {
  assignRequestId(c);
  await next();
});
