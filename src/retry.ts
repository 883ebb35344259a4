import type { RetryPolicy } from "./policy";

export const DEFAULT_BACKOFF_BASE_MS = 100;
export const DEFAULT_BACKOFF_CAP_MS = 10_000;

/**
 * Delay before retry number `retry` (1 = the first retry): exponential from baseMs, capped at capMs,
 * with full jitter unless disabled. A retry-after hint from the failure wins when it is longer.
 */
export function backoffDelay(
  retry: number,
  policy: RetryPolicy,
  retryAfterMs?: number,
  random: () => number = Math.random,
): number {
  const base = policy.baseMs ?? DEFAULT_BACKOFF_BASE_MS;
  const cap = policy.capMs ?? DEFAULT_BACKOFF_CAP_MS;
  const ceiling = Math.min(cap, base * 2 ** (retry - 1));
  const delay = policy.jitter === false ? ceiling : Math.floor(random() * ceiling);
  return retryAfterMs !== undefined && retryAfterMs > delay ? retryAfterMs : delay;
}

/** The longest wait the pipeline accepts before a retry; a longer retry-after hint ends the call with the hint. */
export function maxRetryWait(policy: RetryPolicy): number {
  return Math.max(policy.capMs ?? DEFAULT_BACKOFF_CAP_MS, DEFAULT_BACKOFF_CAP_MS);
}

/** Resolves after ms, or early with false when the signal aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<boolean> {
  if (signal?.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve(true);
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
