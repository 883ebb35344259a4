/**
 * Work one call starts and the calls arriving meanwhile join: a 2025 session's initialize, a 2026
 * era probe. It runs on the starter's signal and fetch, so the starter leaving (cancelled, timed
 * out, its request gone) must not end the others' calls: a joiner told the starter left starts the
 * work again on its own signal.
 */
export interface SharedStart<T> {
  readonly promise: Promise<T>;
  /** The starter's signal, which the work runs on. */
  readonly signal: AbortSignal;
}

/** What a joiner gets when the starter left before the work ended. */
export const STARTER_LEFT: unique symbol = Symbol("the call that started this left");

/** Start `work` on behalf of the call on `signal`; `forget` runs if it fails (a failed start is not kept). */
export function startShared<T>(signal: AbortSignal, work: () => Promise<T>, forget: () => void): SharedStart<T> {
  const promise = work();
  promise.catch(forget);
  return { promise, signal };
}

/**
 * The start's outcome for a call on `signal`: its value or error, or STARTER_LEFT when the starter's
 * signal aborted first (the work may never settle if the starter's request is gone). A call whose own
 * signal aborts stops waiting with its reason.
 */
export function joinShared<T>(start: SharedStart<T>, signal: AbortSignal): Promise<T | typeof STARTER_LEFT> {
  if (start.signal === signal) return start.promise;
  if (signal.aborted) return Promise.reject(signal.reason);
  if (start.signal.aborted) return Promise.resolve(STARTER_LEFT);
  return new Promise<T | typeof STARTER_LEFT>((resolve, reject) => {
    const settle = (outcome: () => void) => {
      start.signal.removeEventListener("abort", starterLeft);
      signal.removeEventListener("abort", ownAbort);
      outcome();
    };
    const starterLeft = () => settle(() => resolve(STARTER_LEFT));
    const ownAbort = () => settle(() => reject(signal.reason));
    start.signal.addEventListener("abort", starterLeft, { once: true });
    signal.addEventListener("abort", ownAbort, { once: true });
    start.promise.then(
      (value) => settle(() => resolve(value)),
      (error: unknown) => settle(() => (start.signal.aborted ? resolve(STARTER_LEFT) : reject(error))),
    );
  });
}
