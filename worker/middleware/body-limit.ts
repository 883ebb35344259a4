import { bodyLimit as honoBodyLimit } from "hono/body-limit";
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../env";
import { ApiError } from "../errors";

/**
 * The tenant's body size limit. hono's bodyLimit trusts Content-Length when present and otherwise
 * counts a chunked body as it streams, so an unbounded upload stops at the limit either way.
 */
export const bodyLimit = createMiddleware<AppEnv>((c, next) => {
  const maxSize = c.var.tenant.config.limits.maxBodyBytes;
  return honoBodyLimit({
    maxSize,
    onError: () => {
      throw new ApiError(413, "body_too_large", `The request body is larger than the limit of ${maxSize} bytes.`);
    },
  })(c, next);
});
