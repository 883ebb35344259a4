/**
 * A circuit breaker over one server's tool listings, as plain data: every failed listing opens it
 * for a backoff that doubles with each failure in a row (FIRST_BACKOFF_MS … MAX_BACKOFF_MS); when
 * that has passed it lets one listing through (half-open: the caller runs one at a time per server);
 * the first success closes it.
 */
export interface Breaker {
  /** Failed listings in a row. */
  failures: number;
  /** No listing before this time (ms since epoch). */
  openUntil: number;
}

export const FIRST_BACKOFF_MS = 10_000;
export const MAX_BACKOFF_MS = 5 * 60_000;

export const CLOSED: Readonly<Breaker> = Object.freeze({ failures: 0, openUntil: 0 });

export function breakerAllows(breaker: Breaker, now: number): boolean {
  return now >= breaker.openUntil;
}

export function afterFailure(breaker: Breaker, now: number): Breaker {
  const failures = breaker.failures + 1;
  return { failures, openUntil: now + Math.min(FIRST_BACKOFF_MS * 2 ** (failures - 1), MAX_BACKOFF_MS) };
}
