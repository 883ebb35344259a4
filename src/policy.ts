import * as v from "valibot";
import { GateRulesSchema, type GateRules } from "./gates/rules";
import { isJsonPointer } from "./json-pointer";
import type { CallUser } from "./contract/users";

export type Risk = "low" | "medium" | "high";

export interface RetryPolicy {
  /** Total attempts including the first (1 = no retry). */
  attempts: number;
  /** First backoff delay in ms (doubles each attempt). Default 100. */
  baseMs?: number;
  /** Largest backoff delay in ms. Default 10_000. */
  capMs?: number;
  /** Full jitter (random 0..delay) unless false. */
  jitter?: boolean;
}

/** policy.concurrency: which gate a call joins (group, key) and the rules that gate enforces (gates/rules.ts). */
export interface ConcurrencyPolicy<A = unknown> extends GateRules {
  /** Share one gate between several tools. */
  group?: string;
  /**
   * One gate per resource: a function of the validated arguments (and the call's user), e.g.
   * (args) => args.accountId; a JSON Pointer into the arguments, e.g. "/accountId" (the form
   * configuration uses); "@user", one gate per user; or an array of up to 4 pointers and "@user",
   * joined with ":". A pointer that finds nothing, or "@user" for a call made for nobody, gives the
   * empty part: such calls share one gate.
   */
  key?: ((args: A, call: { user?: Readonly<CallUser> }) => string) | string | readonly string[];
}

/**
 * Who confirms a call before it runs: nobody ("never"), an admin ("always", or a function of the
 * arguments saying when), or the person who made the call ("user": asked through ctx.ask's channel,
 * e.g. an MCP client's elicitation; a caller that cannot be asked gets an admin's approval instead).
 */
export type ApprovalPolicy<A = unknown> = "never" | "always" | "user" | ((args: A) => boolean);

/**
 * Where a call runs: in the request that made it (inline), handed at once to a host that outlives the
 * request (detached: the caller gets the running record), or inline until detachAfterMs and detached
 * then (auto: fast calls pay nothing). Without a host for detached calls (the core alone), every call
 * runs inline.
 */
export type ExecutionMode = "inline" | "detached" | "auto";

export interface ToolPolicy<A = unknown> {
  timeoutMs?: number;
  retry?: RetryPolicy;
  /** Safe to run twice: only idempotent tools are retried after a failure that may have had a side effect. */
  idempotent?: boolean;
  risk?: Risk;
  readOnly?: boolean;
  approval?: ApprovalPolicy<A>;
  concurrency?: ConcurrencyPolicy<A>;
  /** Largest result (characters of text) that reaches the model before it is truncated. */
  outputBudget?: number;
  /** inline (default), detached or auto; see ExecutionMode. */
  execution?: ExecutionMode;
  /** auto: a call still running this long after it started is answered as running and goes on. Default 5000. */
  detachAfterMs?: number;
  /**
   * MCP tasks (2026-07-28): a detached or auto tool runs as a task for clients that follow tasks
   * ("optional", the default for them); "required" offers it to such clients only (others get -32021).
   */
  taskSupport?: "optional" | "required";
}

const positiveInt = (max: number) => v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(max));

export const RetryPolicySchema = v.strictObject({
  attempts: positiveInt(10),
  baseMs: v.optional(v.pipe(v.number(), v.minValue(0), v.maxValue(600_000))),
  capMs: v.optional(v.pipe(v.number(), v.minValue(0), v.maxValue(3_600_000))),
  jitter: v.optional(v.boolean()),
});

const gateName = v.pipe(v.string(), v.regex(/^[a-zA-Z0-9_.:-]{1,64}$/, "must match ^[a-zA-Z0-9_.:-]{1,64}$"));
/** The key that names the call's user (not a JSON Pointer, which starts with "/" or is empty). */
export const USER_KEY = "@user";
const keyPart = v.pipe(
  v.string(),
  v.check(
    (key) => key === USER_KEY || isJsonPointer(key),
    'must be "@user" or a JSON Pointer into the arguments (RFC 6901, at most 256 characters), like "/repo"',
  ),
);
const KEY_PARTS = 'an array of 1 to 4 of "@user" and JSON Pointers';
const keyParts = v.pipe(
  v.array(keyPart),
  v.minLength(1, `must be ${KEY_PARTS}`),
  v.maxLength(4, `must be ${KEY_PARTS}`),
);
const keyPointer = v.union(
  [keyPart, keyParts],
  'must be "@user", a JSON Pointer into the arguments like "/repo", or an array of 1 to 4 of those',
);

/** Policy fields that can come from configuration (JSON): everything but functions. */
export const PolicyDataSchema = v.strictObject({
  timeoutMs: v.optional(positiveInt(15 * 60_000)),
  retry: v.optional(RetryPolicySchema),
  idempotent: v.optional(v.boolean()),
  risk: v.optional(v.picklist(["low", "medium", "high"])),
  readOnly: v.optional(v.boolean()),
  approval: v.optional(v.picklist(["never", "always", "user"])),
  concurrency: v.optional(
    v.strictObject({
      ...GateRulesSchema.entries,
      group: v.optional(gateName),
      key: v.optional(keyPointer),
    }),
  ),
  outputBudget: v.optional(positiveInt(10_000_000)),
  execution: v.optional(v.picklist(["inline", "detached", "auto"])),
  detachAfterMs: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(600_000))),
  taskSupport: v.optional(v.picklist(["optional", "required"])),
});

const PolicySchema = v.strictObject({
  ...PolicyDataSchema.entries,
  approval: v.optional(v.union([v.picklist(["never", "always", "user"]), v.function()])),
  concurrency: v.optional(
    v.strictObject({
      ...PolicyDataSchema.entries.concurrency.wrapped.entries,
      key: v.optional(
        v.union(
          [v.function(), keyPart, keyParts],
          'must be a function of the arguments, "@user", a JSON Pointer into them like "/repo", ' +
            "or an array of 1 to 4 of those",
        ),
      ),
    }),
  ),
});

const PARSED = new WeakSet<object>();

/**
 * Mark a policy whose every field was parsed with PolicyDataSchema (a declaration's): a subset of what
 * checkPolicy accepts, so its tool skips the second parse (a tenant of 1,000 declared tools parsed each twice).
 */
export function parsedPolicy<P extends ToolPolicy>(policy: P): P {
  PARSED.add(policy);
  return policy;
}

/** Throws a readable error naming the tool and the field when a policy is malformed. */
export function checkPolicy<A>(toolName: string, policy: ToolPolicy<A> | undefined): ToolPolicy<A> {
  if (policy === undefined) return {};
  if (PARSED.has(policy)) return policy;
  const parsed = v.safeParse(PolicySchema, policy);
  if (!parsed.success) {
    const first = parsed.issues[0];
    const path = v.getDotPath(first) ?? "policy";
    throw new TypeError(`Tool "${toolName}": invalid policy.${path}: ${first.message}`);
  }
  return policy;
}
