/** Steps answer a value or a promise of one: the pipeline awaits only what is a promise. */
export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === "object" && value !== null && typeof (value as { then?: unknown }).then === "function";
}
