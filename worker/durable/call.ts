/**
 * Calls to Durable Objects by Cloudflare's guidance on their errors ("Durable Objects: error
 * handling"): an exception a stub throws may carry `overloaded` (never retry: it adds to the
 * overload) or `retryable` (retry an idempotent request with a fresh stub, with exponential backoff).
 * Anything else is an exception from the object's own code, i.e. a bug, and is not retried.
 */
import { ApiError } from "../errors";

/** How long a caller is told to wait after an overload (the Retry-After header, in whole seconds). */
export const RETRY_AFTER_MS = 1_000;
const BASE_MS = 50;
const CAP_MS = 1_000;

/**
 * A Durable Object that cannot take the request now: overloaded, or still failing after its retries.
 * Answers 503 with Retry-After; inside a call's pipeline it becomes the call's `busy` result.
 */
export class DurableUnavailable extends ApiError {
  override name = "DurableUnavailable";
  readonly retryAfterMs = RETRY_AFTER_MS;
  constructor(code: "overloaded" | "unavailable", message: string) {
    super(503, code, message, { "Retry-After": String(RETRY_AFTER_MS / 1000) });
  }
}

/** The platform's flag for an object that cannot keep up: retrying would add to its load. */
export function isOverloaded(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { overloaded?: unknown }).overloaded === true;
}

function isRetryable(error: unknown): boolean {
  return (
    typeof error === "object" &&
    error !== null &&
    (error as { retryable?: unknown }).retryable === true &&
    !isOverloaded(error)
  );
}

/** The 503 an overloaded object answers with, wherever its error surfaced. */
export function overloaded(): DurableUnavailable {
  return new DurableUnavailable(
    "overloaded",
    `toolgate's storage is overloaded; try again in ${RETRY_AFTER_MS / 1000} s.`,
  );
}

/**
 * What to do after attempt `attempt` of `tries` failed with `error`: wait and retry with a fresh
 * stub, or give up with `fail`.
 */
export type AfterFailure = { retryInMs: number } | { fail: unknown };

export function afterFailure(error: unknown, attempt: number, tries: number): AfterFailure {
  if (isOverloaded(error)) return { fail: overloaded() };
  if (!isRetryable(error)) return { fail: error };
  if (attempt >= tries) {
    const wait = RETRY_AFTER_MS / 1000;
    const message = `toolgate's storage did not answer after ${tries} attempts; try again in ${wait} s.`;
    return { fail: new DurableUnavailable("unavailable", message) };
  }
  // Full jitter: callers that failed together do not come back together.
  return { retryInMs: Math.random() * Math.min(CAP_MS, BASE_MS * 2 ** (attempt - 1)) };
}

export interface DurableCallOptions {
  /**
   * Attempts in all (default 3). Pass 1 for a request that is not safe to repeat: a retryable error
   * may come from a request that did reach the object.
   */
  tries?: number;
}

/**
 * One RPC: `stub()` is called for every attempt (a broken stub stays broken). Rejects with a
 * DurableUnavailable (503) when the object is overloaded or stays unreachable, and with the error as
 * it is when the object's code threw (the app answers 500 with the request id). Every wait is bounded.
 */
export async function callDurable<S, T>(
  stub: () => S,
  run: (stub: S) => Promise<T>,
  options: DurableCallOptions = {},
): Promise<T> {
  const tries = options.tries ?? 3;
  for (let attempt = 1; ; attempt++) {
    try {
      return await run(stub());
    } catch (error) {
      const next = afterFailure(error, attempt, tries);
      if ("fail" in next) throw next.fail;
      await new Promise((resolve) => setTimeout(resolve, next.retryInMs));
    }
  }
}
