import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import { isOverloaded, overloaded } from "./durable/call";
import type { AppEnv } from "./env";
import { ApiError, ConfigError, errorBody } from "./errors";
import { logLine } from "./log";
import { tenantTextMasker } from "./tenant/mask";

/** Expected failures answer their own status; anything else is logged (masked) and answers 500 JSON. */
export function answerError(error: Error, c: Context<AppEnv>): Response {
  // An overloaded Durable Object reached from a call site that did not classify it: 503 all the same.
  if (isOverloaded(error)) error = overloaded();
  if (error instanceof ApiError) {
    return c.json(errorBody(error.code, error.message), error.status, error.headers);
  }
  if (error instanceof ConfigError) {
    logLine({ msg: "config_invalid", requestId: c.var.requestId, error: error.message });
    return c.json(errorBody("config_invalid", error.message), 500);
  }
  if (error instanceof HTTPException) {
    return c.json(
      errorBody(error.status === 413 ? "body_too_large" : "http_error", error.message || "Request failed."),
      error.status,
    );
  }
  const mask = tenantTextMasker(c);
  const cause = error instanceof Error ? `${error.name}: ${error.message}\n${error.stack ?? ""}` : String(error);
  logLine({ msg: "unhandled_error", requestId: c.var.requestId, path: c.req.path, error: mask(cause) });
  return c.json(errorBody("internal", `Internal error (request ${c.var.requestId}).`), 500);
}
