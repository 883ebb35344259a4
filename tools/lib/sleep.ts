import * as v from "valibot";
import { defineTool } from "../../src";
import { sleep as wait } from "../../src/retry";

/**
 * What the sleep tools share (tools/sleep.ts, tools/sleep_pool.ts and the gate fixtures of the tests).
 * Files directly in tools/ are tools; tools/lib/ holds code they share and is no tool itself.
 */

/** Longest sleep a demo tool accepts, so a demo call can never hold a slot for long. */
export const MAX_SLEEP_MS = 30_000;

/** A sleep's own arguments and report: what it was asked, and when the sleep itself ran. */
export const SLEEP_MS = v.pipe(
  v.number(),
  v.integer(),
  v.minValue(0),
  v.maxValue(MAX_SLEEP_MS),
  v.description("How long to sleep, in milliseconds"),
);
export const SLEEP_REPORT = v.object({ ms: v.number(), startedAt: v.number(), endedAt: v.number() });

/** Waits ms (or until the call is cancelled, then throws its reason) and reports when it ran. */
export async function timedSleep(ms: number, signal: AbortSignal): Promise<v.InferOutput<typeof SLEEP_REPORT>> {
  const startedAt = Date.now();
  if (!(await wait(ms, signal))) throw signal.reason;
  return { ms, startedAt, endedAt: Date.now() };
}

/** A tool that waits ms (or until the call is cancelled) behind a gate of `limit` across the tenant. */
export function sleepTool(name: string, description: string, limit: number) {
  return defineTool({
    name,
    description,
    input: v.object({ ms: SLEEP_MS }),
    output: SLEEP_REPORT,
    policy: { concurrency: { limit }, timeoutMs: MAX_SLEEP_MS + 5_000, idempotent: true },
    render: { call: "Sleep {ms} ms" },
    tags: ["demo", "gates"],
    run: ({ ms }, ctx) => timedSleep(ms, ctx.signal),
  });
}
