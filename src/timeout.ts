export type Settled<T> =
  | { kind: "value"; value: T }
  | { kind: "error"; error: unknown }
  | { kind: "timeout" }
  | { kind: "cancelled" };

/**
 * Waits for a tool's promise, a deadline and the caller's cancellation, whichever comes first. On
 * timeout or cancellation the tool's abort side is fired and a late result is discarded: a tool that
 * ignores its signal cannot hold the call open.
 */
export function settle<T>(
  work: Promise<T>,
  timeoutMs: number | undefined,
  abort: { abort(reason: string): void } | undefined,
  cancel: AbortSignal | undefined,
): Promise<Settled<T>> {
  return new Promise((resolve) => {
    let done = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const finish = (outcome: Settled<T>) => {
      if (done) return;
      done = true;
      if (timer !== undefined) clearTimeout(timer);
      cancel?.removeEventListener("abort", onCancel);
      if (outcome.kind === "timeout" || outcome.kind === "cancelled") abort?.abort(outcome.kind);
      resolve(outcome);
    };
    const onCancel = () => finish({ kind: "cancelled" });
    if (cancel?.aborted) return finish({ kind: "cancelled" });
    cancel?.addEventListener("abort", onCancel, { once: true });
    if (timeoutMs !== undefined) timer = setTimeout(() => finish({ kind: "timeout" }), timeoutMs);
    work.then(
      (value) => finish({ kind: "value", value }),
      (error: unknown) => finish({ kind: "error", error }),
    );
  });
}
