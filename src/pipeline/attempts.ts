import { isRetryableCode, isToolError } from "../errors";
import type { JsonValue } from "../json";
import type { CallResult } from "../result";
import { backoffDelay, maxRetryWait, sleep } from "../retry";
import { runAttempt, type AttemptOutcome } from "./attempt";
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
  if (state.cancel?.aborted) return fail(state, "cancelled", `The call to "${tool.name}" was cancelled before it started.`);
  const outcome =
    tool.policy.retry || env.hooks.onEvent || env.hooks.onStart
      ? attemptFrom(state, 1, env.hooks.onEvent || env.hooks.onStart ? mask(env, state.args) : undefined)
      : runAttempt(state, 1);
  return isThenable(outcome) ? outcome.then((settled) => ended(state, settled)) : ended(state, outcome);
}

function ended(state: CallState, outcome: AttemptOutcome): CallResult | Promise<CallResult> {
  state.attempts = outcome.attempts;
  // The outcome is the ending as it is: finish reads only ok, output and error.
  return finish(state, outcome);
}

/** Attempt number `attempt` and, while the policy says so, the ones after it. */
function attemptFrom(state: CallState, attempt: number, maskedArgs: JsonValue | undefined): AttemptOutcome | Promise<AttemptOutcome> {
  announceStart(state, attempt, maskedArgs);
  const outcome = runAttempt(state, attempt);
  return isThenable(outcome) ? outcome.then((settled) => retryOrEnd(state, settled, maskedArgs)) : retryOrEnd(state, outcome, maskedArgs);
}

/** The outcome when it is final; otherwise the backoff, then the next attempt (or cancelled while waiting). */
function retryOrEnd(state: CallState, outcome: AttemptOutcome, maskedArgs: JsonValue | undefined): AttemptOutcome | Promise<AttemptOutcome> {
  if (outcome.ok) return outcome;
  const delay = retryDelay(state, outcome);
  if (delay === undefined) return outcome;
  const attempt = outcome.attempts;
  return sleep(delay, state.cancel).then((slept): AttemptOutcome | Promise<AttemptOutcome> => {
    if (slept) return attemptFrom(state, attempt + 1, maskedArgs);
    const message = `The call to "${state.tool!.name}" was cancelled between retries.`;
    return { ok: false, error: { code: "cancelled", message }, cause: outcome.cause, attempts: attempt };
  });
}

/** How long to wait before another attempt, or undefined when this failure ends the call. */
function retryDelay(state: CallState, outcome: Extract<AttemptOutcome, { ok: false }>): number | undefined {
  const { env, callId } = state;
  const tool = state.tool!;
  const policy = tool.policy.retry;
  if (!policy || outcome.attempts >= policy.attempts) return undefined;
  const { error, cause } = outcome;
  if (error.code === "cancelled") return undefined;
  // Only calls that are safe to repeat are repeated after a failure that may have had a side effect.
  const idempotent = tool.policy.idempotent ?? tool.policy.readOnly ?? false;
  const hookAnswer = env.hooks.shouldRetry?.({ callId, tenant: env.tenant, tool }, cause, outcome.attempts);
  const retryable = isToolError(cause) ? cause.retryable : isRetryableCode(error.code);
  if (!(hookAnswer ?? (retryable && idempotent))) return undefined;
  if (error.retryAfterMs !== undefined && error.retryAfterMs > maxRetryWait(policy)) return undefined;
  return backoffDelay(outcome.attempts, policy, error.retryAfterMs);
}

/** call.started, for each attempt, to onEvent and onStart. */
function announceStart(state: CallState, attempt: number, maskedArgs: JsonValue | undefined): void {
  const { env } = state;
  if (!env.hooks.onEvent && !env.hooks.onStart) return;
  const base = { type: "call.started", at: env.now(), callId: state.callId, tenant: env.tenant, tool: state.name, attempt } as const;
  const event = maskedArgs === undefined ? base : { ...base, args: maskedArgs };
  emit(env, event);
  try {
    env.hooks.onStart?.(event);
  } catch {
    // observers cannot break a call
  }
}
