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
 * call's cancellation; then finish records the outcome. A tool without retries or observers takes the
 * direct path, synchronous when the tool is.
 */
export function runAttempts(state: CallState): StepOutcome {
  const { env } = state;
  const tool = state.tool!;
  if (state.cancel?.aborted) return fail(state, "cancelled", `The call to "${tool.name}" was cancelled before it started.`);
  const outcome =
    tool.policy.retry || env.hooks.onEvent || env.hooks.onStart
      ? withRetries(state)
      : runAttempt({ env, tool, callId: state.callId, args: state.input, attempt: 1, cancel: state.cancel });
  return isThenable(outcome) ? outcome.then((settled) => ended(state, settled)) : ended(state, outcome);
}

function ended(state: CallState, outcome: AttemptOutcome): CallResult | Promise<CallResult> {
  state.attempts = outcome.attempts;
  // The outcome is the ending as it is: finish reads only ok, output and error.
  return finish(state, outcome);
}

async function withRetries(state: CallState): Promise<AttemptOutcome> {
  const { env, callId, cancel } = state;
  const tool = state.tool!;
  const policy = tool.policy.retry;
  const maxAttempts = policy?.attempts ?? 1;
  // Only calls that are safe to repeat are repeated after a failure that may have had a side effect.
  const idempotent = tool.policy.idempotent ?? tool.policy.readOnly ?? false;
  const maskedArgs = env.hooks.onEvent || env.hooks.onStart ? mask(env, state.args) : undefined;
  for (let attempt = 1; ; attempt++) {
    announceStart(state, attempt, maskedArgs);
    const outcome = await runAttempt({ env, tool, callId, args: state.input, attempt, cancel });
    if (outcome.ok || attempt >= maxAttempts || !policy) return outcome;
    const { error, cause } = outcome;
    if (error.code === "cancelled") return outcome;
    const hookAnswer = env.hooks.shouldRetry?.({ callId, tenant: env.tenant, tool }, cause, attempt);
    const retryable = isToolError(cause) ? cause.retryable : isRetryableCode(error.code);
    if (!(hookAnswer ?? (retryable && idempotent))) return outcome;
    if (error.retryAfterMs !== undefined && error.retryAfterMs > maxRetryWait(policy)) return outcome;
    if (!(await sleep(backoffDelay(attempt, policy, error.retryAfterMs), cancel))) {
      const message = `The call to "${tool.name}" was cancelled between retries.`;
      return { ok: false, error: { code: "cancelled", message }, cause, attempts: attempt };
    }
  }
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
