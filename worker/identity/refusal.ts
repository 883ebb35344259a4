import { ApiError } from "../errors";
import type { JwtResult } from "../identity-library";

/** A failed verification as the lazy module answers it (identity/lazy/jwt.ts). */
export type JwtFailure = Extract<JwtResult, { ok: false }>;

/**
 * The answer to a token that failed verification: 401 `code` naming the reason (an ID token, an Access
 * assertion, an app's user token: the caller sends another), or 503 keys_unavailable when the issuer's
 * key set could not be had (the issuer's fault: retry later). `what` names the token in the message.
 */
export function jwtRefusal(failure: JwtFailure, code: string, what: string): ApiError {
  if (failure.reason === "keys_unavailable")
    return new ApiError(503, "keys_unavailable", `${what} could not be verified: ${failure.detail}. Retry later.`, {
      "Retry-After": "5",
    });
  return new ApiError(401, code, `${what} is refused (${failure.reason}): ${failure.detail}.`);
}
