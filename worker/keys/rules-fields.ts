import * as v from "valibot";

/** The rules a key or an OAuth grant may carry, as the admin API and the consent step accept them. */
export const RulesFields = {
  /** Only these tools (1-256 names); absent: every tool. */
  tools: v.optional(
    v.pipe(
      v.array(v.pipe(v.string(), v.regex(/^[a-zA-Z0-9_-]{1,64}$/, "must be tool names"))),
      v.minLength(1, "must name at least one tool (leave it out for every tool)"),
      v.maxLength(256, "may name at most 256 tools"),
    ),
  ),
  /** Calls per minute, 1-100000, shared by every isolate; absent: no limit. */
  ratePerMinute: v.optional(
    v.pipe(
      v.number(),
      v.integer("must be an integer"),
      v.minValue(1, "must be at least 1"),
      v.maxValue(100_000, "must be at most 100000"),
    ),
  ),
  /** Milliseconds since the epoch, in the future; absent: never expires. */
  expiresAt: v.optional(
    v.pipe(
      v.number(),
      v.integer("must be milliseconds since the epoch"),
      v.check((at) => at > Date.now(), "must be in the future"),
    ),
  ),
};
