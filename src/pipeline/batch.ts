import { runCall } from "./sequence";
import type { ToolCall } from "../tool-call";
import type { BatchOptions } from "../options";
import { preparePipeline } from "./env";
import { isThenable } from "./thenable";
import type { CallResult } from "../result";

export const DEFAULT_MAX_PARALLEL = 8;

/**
 * Run many calls; results come back in input order. At most maxParallel run at once. With
 * onError "abort", the first failure cancels the calls still running and those not yet started.
 */
export async function executeBatch(calls: readonly ToolCall[], options: BatchOptions): Promise<CallResult[]> {
  const env = preparePipeline(options);
  const results = new Array<CallResult>(calls.length);
  const abortOnError = options.onError === "abort";
  // A batch-wide signal only when something can fire it: abort mode or the caller's own signal.
  const batch = abortOnError ? new AbortController() : undefined;
  const forward = () => batch?.abort(options.signal?.reason);
  if (batch && options.signal) {
    if (options.signal.aborted) batch.abort(options.signal.reason);
    else options.signal.addEventListener("abort", forward, { once: true });
  }
  const signal = batch?.signal ?? options.signal;
  const width = Math.max(1, Math.min(options.maxParallel ?? DEFAULT_MAX_PARALLEL, calls.length));
  let next = 0;
  const worker = async () => {
    while (next < calls.length) {
      const index = next++;
      const running = runCall(calls[index]!, env, signal);
      // A call that ended synchronously (a sync tool, no journal or gate) needs no microtask turn.
      const result = isThenable(running) ? await running : running;
      results[index] = result;
      if (batch && !result.ok && result.error.code !== "approval_required") batch.abort("batch aborted");
    }
  };
  const workers: Promise<void>[] = [];
  for (let i = 0; i < width; i++) workers.push(worker());
  await Promise.all(workers);
  // A caller's long-lived signal must not collect one listener per batch.
  options.signal?.removeEventListener("abort", forward);
  return results;
}
