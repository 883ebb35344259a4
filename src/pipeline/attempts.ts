import { isRetryableCode, isToolError } from "../errors";
import type { JsonValue } from "../json";
import type { CallResult } from "../result";
import { backoffDelay, maxRetryWait, sleep } from "../retry";
import { DEFAULT_TIMEOUT_MS, runAttempt, type AttemptOutcome } from "./attempt";
import { emit } from "./env";
import { fail, finish, mask } from "./finish";
import type { CallState, StepOutcome } from "./state";
import { isThenable } from "./thenable";

/**
 * Runs the tool: one attempt, or several under the tool's retry policy, each with its timeout and the
 * call's cancellation; then finish records the outcome. Synchronous until something waits (an async
 * tool, the backoff before a retry): a sync tool that succeeds the first time costs no promise, retry
 * policy and observers or not.
 */
export function runAttempts(state: CallState): StepOutcome {
  const { env } = state;
  const tool = state.tool!;
  if (state.cancel?.aborted)
    return fail(state, "cancelled", `The call to "${tool.name}" was cancelled before it started.`);
  const observed = env.hooks.onEvent || env.hooks.onStart;
  const outcome =
    tool.policy.retry || observed
      ? attemptFrom(state, 1, observed ? mask(env, state.args) : undefined, env.now())
      : runAttempt(state, 1);
  return isThenable(outcome) ? outcome.then((settled) => ended(state, settled)) : ended(state, outcome);
}

function ended(state: CallState, outcome: AttemptOutcome): CallResult | Promise<CallResult> {
  state.attempts = outcome.attempts;
  // The outcome is the ending as it is: finish reads only ok, output and error.
  return finish(state, outcome);
}

/** Attempt number `attempt` and, while the policy says so, the ones after it (firstAt: when attempt 1 started). */
function attemptFrom(
  state: CallState,
  attempt: number,
  maskedArgs: JsonValue | undefined,
  firstAt: number,
): AttemptOutcome | Promise<AttemptOutcome> {
  announceStart(state, attempt, maskedArgs);
  const outcome = runAttempt(state, attempt);
  return isThenable(outcome)
    ? outcome.then((settled) => retryOrEnd(state, settled, maskedArgs, firstAt))
    : retryOrEnd(state, outcome, maskedArgs, firstAt);
}

/** The outcome when it is final; otherwise the backoff, then the next attempt (or cancelled while waiting). */
function retryOrEnd(
  state: CallState,
  outcome: AttemptOutcome,
  maskedArgs: JsonValue | undefined,
  firstAt: number,
): AttemptOutcome | Promise<AttemptOutcome> {
  if (state.env.hooks.onEvent) announceEnd(state, outcome);
  if (outcome.ok) return outcome;
  const delay = retryDelay(state, outcome, firstAt);
  if (typeof delay !== "number") return delay;
  const attempt = outcome.attempts;
  return sleep(delay, state.cancel).then((slept): AttemptOutcome | Promise<AttemptOutcome> => {
    if (slept) return attemptFrom(state, attempt + 1, maskedArgs, firstAt);
    const message = `The call to "${state.tool!.name}" was cancelled between retries.`;
    return { ok: false, error: { code: "cancelled", message }, cause: outcome.cause, attempts: attempt };
  });
}

type Failed = Extract<AttemptOutcome, { ok: false }>;

/** How long to wait before another attempt, or the outcome that ends the call. */
function retryDelay(state: CallState, outcome: Failed, firstAt: number): number | Failed {
  const { env, callId } = state;
  const tool = state.tool!;
  const policy = tool.policy.retry;
  if (!policy || outcome.attempts >= policy.attempts) return outcome;
  const { error, cause } = outcome;
  if (error.code === "cancelled") return outcome;
  // Only calls that are safe to repeat are repeated after a failure that may have had a side effect.
  const idempotent = tool.policy.idempotent ?? tool.policy.readOnly ?? false;
  const call = env.user ? { callId, tenant: env.tenant, tool, user: env.user } : { callId, tenant: env.tenant, tool };
  const answer = env.hooks.shouldRetry?.(call, cause, outcome.attempts);
  const decided = typeof answer === "object" && answer !== null ? answer : undefined;
  const retryable = isToolError(cause) ? cause.retryable : isRetryableCode(error.code);
  if (!((decided ? decided.retry : answer) ?? (retryable && idempotent))) return outcome;
  if (decided?.delayMs !== undefined) return hookDelay(state, outcome, decided.delayMs, firstAt);
  if (error.retryAfterMs !== undefined && error.retryAfterMs > maxRetryWait(policy)) return outcome;
  return backoffDelay(outcome.attempts, policy, error.retryAfterMs);
}

/**
 * A shouldRetry hook's own delay, when the next attempt can still run its whole timeout within the
 * call's budget after it (timeoutMs per attempt, counted from the first: what a concurrency slot is
 * leased for). Otherwise the call ends with the failure and the delay as its retryAfterMs, so the
 * caller learns when to come back; clipping it would retry before the time the hook asked for.
 */
function hookDelay(state: CallState, outcome: Failed, delayMs: number, firstAt: number): number | Failed {
  const { policy } = state.tool!;
  const timeoutMs = policy.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const budgetEnd = firstAt + timeoutMs * policy.retry!.attempts;
  const delay = Math.max(0, Math.ceil(delayMs));
  if (!Number.isFinite(delay)) return outcome;
  if (state.env.now() + delay + timeoutMs <= budgetEnd) return delay;
  return { ...outcome, error: { ...outcome.error, retryAfterMs: delay } };
}

/** attempt.finished, for each attempt, to onEvent. */
function announceEnd(state: CallState, outcome: AttemptOutcome): void {
  const { env } = state;
  const event = {
    type: "attempt.finished",
    at: env.now(),
    callId: state.callId,
    tenant: env.tenant,
    tool: state.name,
    attempt: outcome.attempts,
  } as const;
  emit(env, outcome.ok ? event : { ...event, error: outcome.error.code });
}

/** call.started, for each attempt, to onEvent and onStart. */
function announceStart(state: CallState, attempt: number, maskedArgs: JsonValue | undefined): void {
  const { env } = state;
  if (!env.hooks.onEvent && !env.hooks.onStart) return;
  const base = {
    type: "call.started",
    at: env.now(),
    callId: state.callId,
    tenant: env.tenant,
    tool: state.name,
    attempt,
  } as const;
  const event = maskedArgs === undefined ? base : { ...base, args: maskedArgs };
  emit(env, event);
  try {
    env.hooks.onStart?.(event);
  } catch {
    // observers cannot break a call
  }
}
