import { isRetryableCode, isToolError } from "../errors";
import { runAttempt, DEFAULT_TIMEOUT_MS, emit, type AttemptOutcome } from "./attempt";
import { gateName } from "../gate-key";
import type { JsonValue } from "../json";
import type { ClaimWatch } from "../journal";
import type { PipelineEnv } from "./env";
import { backoffDelay, maxRetryWait, sleep } from "../retry";
import type { Tool } from "../tool";
import type { CallError } from "../result";

/** Extra lease time beyond the worst-case run, so a slow but healthy holder keeps its slot. */
const LEASE_GRACE_MS = 30_000;
const DEFAULT_MAX_QUEUE = 64;

export interface RunInput {
  env: PipelineEnv;
  tool: Tool;
  callId: string;
  args: unknown;
  /** Masked arguments, for the call.started event. */
  maskedArgs: JsonValue | undefined;
  cancel: AbortSignal | undefined;
  /** The journal's hold on a claimed call: told when it queues, asked before it starts after waiting. */
  watch: ClaimWatch | undefined;
}

/**
 * Acquire the tool's gate slot (if it has one), run with retries, release on every path. An ungated
 * tool without retries takes the direct path, synchronous when the tool is.
 */
export function runTool(input: RunInput): AttemptOutcome | Promise<AttemptOutcome> {
  if (!input.tool.policy.concurrency) {
    if (input.tool.policy.retry || input.env.hooks.onEvent || input.env.hooks.onStart) return runWithRetries(input);
    // No object spread here: V8 copies this input shape slowly, and this line runs on every call.
    const { env, tool, callId, args, cancel } = input;
    return runAttempt({ env, tool, callId, args, attempt: 1, cancel });
  }
  return runGated(input);
}

async function runGated(input: RunInput): Promise<AttemptOutcome> {
  const { env, tool, callId, args, cancel, watch } = input;
  const concurrency = tool.policy.concurrency!;
  let gate: string;
  try {
    gate = gateName(env.tenant, tool.name, concurrency, args);
  } catch (error) {
    const message = `Could not compute the concurrency key of "${tool.name}": ${error instanceof Error ? error.message : String(error)}`;
    return { ok: false, error: { code: "tool_error", message }, cause: error, attempts: 0 };
  }
  const attempts = tool.policy.retry?.attempts ?? 1;
  let waited = false;
  const grant = await env.limiter.acquire({
    gate,
    limit: concurrency.limit,
    maxQueue: concurrency.maxQueue ?? DEFAULT_MAX_QUEUE,
    ...(concurrency.maxWaitMs === undefined ? {} : { maxWaitMs: concurrency.maxWaitMs }),
    callId,
    tool: tool.name,
    leaseMs: (tool.policy.timeoutMs ?? DEFAULT_TIMEOUT_MS) * attempts + LEASE_GRACE_MS,
    ...(cancel ? { signal: cancel } : {}),
    ...(watch ? { onQueued: () => ((waited = true), watch.queued()) } : {}),
  });
  if (!grant.ok) {
    const error: CallError =
      grant.code === "busy"
        ? { code: "busy", message: `Tool "${tool.name}" is busy: ${grant.message}. Try again later.` }
        : { code: "cancelled", message: `The call to "${tool.name}" was cancelled while waiting for a slot.` };
    if (grant.retryAfterMs !== undefined) error.retryAfterMs = grant.retryAfterMs;
    return { ok: false, error, cause: grant, attempts: 0 };
  }
  try {
    // A cancel accepted while the call waited may not have reached it yet: the journal decides.
    if (waited && watch) {
      const refused = await refusedStart(tool, watch);
      if (refused) return refused;
    }
    return await runWithRetries(input);
  } finally {
    await grant.release().catch(() => undefined);
  }
}

/** The outcome of a call that got its slot after waiting but must not start; undefined when it may. */
async function refusedStart(tool: Tool, watch: ClaimWatch): Promise<AttemptOutcome | undefined> {
  let mayStart: boolean;
  try {
    mayStart = await watch.mayStart();
  } catch (cause) {
    // Starting could run a call whose cancel was accepted: it does not start.
    const message = `The call to "${tool.name}" did not start: its journal could not confirm that it was not cancelled while it waited.`;
    return { ok: false, error: { code: "internal", message }, cause, attempts: 0 };
  }
  if (mayStart) return undefined;
  const error: CallError = { code: "cancelled", message: `The call to "${tool.name}" was cancelled while waiting for a slot.` };
  return { ok: false, error, cause: error, attempts: 0 };
}

async function runWithRetries({ env, tool, callId, args, maskedArgs, cancel }: RunInput): Promise<AttemptOutcome> {
  const policy = tool.policy.retry;
  const maxAttempts = policy?.attempts ?? 1;
  // Only calls that are safe to repeat are repeated after a failure that may have had a side effect.
  const idempotent = tool.policy.idempotent ?? tool.policy.readOnly ?? false;
  for (let attempt = 1; ; attempt++) {
    if (env.hooks.onEvent || env.hooks.onStart) {
      const base = { type: "call.started", at: env.now(), callId, tenant: env.tenant, tool: tool.name, attempt } as const;
      const event = maskedArgs === undefined ? base : { ...base, args: maskedArgs };
      emit(env, event);
      try {
        env.hooks.onStart?.(event);
      } catch {
        // observers cannot break a call
      }
    }
    const outcome = await runAttempt({ env, tool, callId, args, attempt, cancel });
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
