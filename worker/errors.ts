import type { ContentfulStatusCode } from "hono/utils/http-status";

/** The one error body every HTTP failure answers with. */
export interface ErrorBody {
  error: { code: string; message: string };
}

export function errorBody(code: string, message: string): ErrorBody {
  return { error: { code, message } };
}

/** An expected HTTP failure (bad request, auth, limits): app.onError answers it as JSON. */
export class ApiError extends Error {
  override name = "ApiError";
  constructor(
    readonly status: ContentfulStatusCode,
    readonly code: string,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/**
 * A tenant configuration that cannot be used; its message names the field. Here, not in tenant/, so
 * the adapters' builder throws it without importing the tenant.
 */
export class ConfigError extends Error {
  override name = "ConfigError";
}
