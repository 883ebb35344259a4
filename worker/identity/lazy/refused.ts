import type { JwtResult } from "./jwt";

/**
 * Refusals of the library module. Code of this folder throws Refused; the entry's functions answer
 * it as a plain Answer (never a class the bundle knows: a second copy would fail instanceof), and the
 * bundle's adapters (worker/identity/answer.ts) throw the ApiError it describes.
 */

/** What the bundle answers: an HTTP status, toolgate's error code and message, extra headers. */
export interface Refusal {
  status: number;
  code: string;
  message: string;
  headers?: Record<string, string>;
}

/** A result of an entry function: its value, or the refusal to answer. */
export type Answer<T> = { ok: true; value: T } | { ok: false; refusal: Refusal };

/** A refusal on its way to the entry function (thrown only inside this folder). */
export class Refused extends Error {
  constructor(readonly refusal: Refusal) {
    super(refusal.message);
  }
}

export function refuse(status: number, code: string, message: string, headers?: Record<string, string>): Refused {
  return new Refused({ status, code, message, ...(headers ? { headers } : {}) });
}

/** Runs `work`, answering its value or the Refused it threw; any other error is thrown on. */
export async function answer<T>(work: () => Promise<T>): Promise<Answer<T>> {
  try {
    return { ok: true, value: await work() };
  } catch (error) {
    if (error instanceof Refused) return { ok: false, refusal: error.refusal };
    throw error;
  }
}

/** A failed verification as jwt.ts answers it. */
export type JwtFailure = Extract<JwtResult, { ok: false }>;

/**
 * The refusal of a token that failed verification: 401 `code` naming the reason (an ID token, an Access
 * assertion, an app's user token: the caller sends another), or 503 keys_unavailable when the issuer's
 * key set could not be had (the issuer's fault: retry later). `what` names the token in the message.
 */
export function jwtRefusal(failure: JwtFailure, code: string, what: string): Refused {
  if (failure.reason === "keys_unavailable")
    return refuse(503, "keys_unavailable", `${what} could not be verified: ${failure.detail}. Retry later.`, {
      "Retry-After": "5",
    });
  return refuse(401, code, `${what} is refused (${failure.reason}): ${failure.detail}.`);
}
