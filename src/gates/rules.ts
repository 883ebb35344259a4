import * as v from "valibot";

const whole = (min: number, max: number) => v.pipe(v.number(), v.integer(), v.minValue(min), v.maxValue(max));

/**
 * What a concurrency gate enforces: the data part of policy.concurrency. One schema for code policies,
 * tenant configuration, the limiters, the Gate object's RPC and its store, which pass the rules on
 * whole; a new rule is a field here and its logic in queue.ts.
 */
export const GateRulesSchema = v.strictObject({
  /** How many calls may run at once across the tenant (1 = sequential). */
  limit: whole(1, 1_000),
  /** Longest queue of waiting calls before new ones answer `busy`. Default 64. */
  maxQueue: v.optional(whole(0, 10_000)),
  /** Longest wait in the queue; a call still waiting then answers `busy` with retryAfterMs. Default: no limit. */
  maxWaitMs: v.optional(whole(0, 3_600_000)),
});

export type GateRules = v.InferOutput<typeof GateRulesSchema>;
