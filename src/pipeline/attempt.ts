import { isToolError, toolError, type ToolError } from "../errors";
import type { CallError, CallOutput, CallStep } from "../result";
import { settle } from "../timeout";
import type { Tool } from "../tool";
import { describeIssues } from "../validation";
import { CallContext } from "./context";
import { normaliseOutput, outputValue } from "./output";
import type { CallState } from "./state";
import { isThenable } from "./thenable";

/** attempts: how many attempts ran up to and including this outcome (0 when none could start). */
export type AttemptOutcome =
  | { ok: true; output: CallOutput; attempts: number }
  | { ok: false; error: CallError; cause: unknown; attempts: number };

/** Async tools without a timeout of their own get this one, so nothing holds a slot forever. */
export const DEFAULT_TIMEOUT_MS = 60_000;

/**
 * Runs the tool once: timeout, cancellation, thrown errors and output checks all become an outcome.
 * Synchronous when the tool is: most calls then cost no promise at all.
 */
export function runAttempt(state: CallState, attempt: number): AttemptOutcome | Promise<AttemptOutcome> {
  const tool = state.tool!;
  const cancel = state.cancel;
  if (cancel?.aborted) return cancelled(tool, attempt);
  const ctx = new CallContext(state, attempt);
  let returned: unknown;
  try {
    returned = tool.run(state.input, ctx);
  } catch (error) {
    return noteStep(state, ctx, fromThrown(tool, error, attempt));
  }
  if (isThenable(returned)) return awaitAttempt(state, returned, ctx, cancel);
  return noteStep(state, ctx, checkOutput(tool, returned, attempt));
}

/**
 * Keeps the attempt's time for the record (CallRecord.steps) when it is worth showing: a failed attempt,
 * a retry, or one that made upstream requests. A first attempt that simply succeeded costs nothing here.
 */
function noteStep(state: CallState, ctx: CallContext, outcome: AttemptOutcome): AttemptOutcome {
  const { upstream } = ctx;
  if (outcome.ok && ctx.attempt === 1 && !upstream) return outcome;
  const origin = state.startedAt;
  const step: CallStep = {
    attempt: ctx.attempt,
    startMs: ctx.startedAt - origin,
    durationMs: state.env.now() - ctx.startedAt,
  };
  if (!outcome.ok) step.error = outcome.error.code;
  if (upstream)
    step.upstream = {
      startMs: upstream.startMs - origin,
      durationMs: upstream.endMs - upstream.startMs,
      requests: upstream.requests,
    };
  (state.steps ??= []).push(step);
  return outcome;
}

async function awaitAttempt(
  state: CallState,
  work: PromiseLike<unknown>,
  ctx: CallContext,
  cancel: AbortSignal | undefined,
): Promise<AttemptOutcome> {
  const tool = state.tool!;
  const timeoutMs = tool.policy.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const settled = await settle(
    Promise.resolve(work),
    timeoutMs,
    { abort: (reason) => CallContext.abort(ctx, reason) },
    cancel,
  );
  const attempt = ctx.attempt;
  const outcome =
    settled.kind === "timeout"
      ? failure(toolError("timeout", `Tool "${tool.name}" did not finish within ${timeoutMs} ms.`), attempt)
      : settled.kind === "cancelled"
        ? cancelled(tool, attempt)
        : settled.kind === "error"
          ? fromThrown(tool, settled.error, attempt)
          : checkOutput(tool, settled.value, attempt);
  return noteStep(state, ctx, outcome);
}

function checkOutput(tool: Tool, returned: unknown, attempt: number): AttemptOutcome {
  const output = normaliseOutput(returned);
  if (typeof output === "string")
    return failure(toolError("tool_error", `Tool "${tool.name}" failed: ${output}`, { retryable: false }), attempt);
  if (tool.validateOutput) {
    const checked = tool.validateOutput(outputValue(returned));
    if (!checked.ok) {
      const issues = describeIssues(checked.issues);
      const message = `Tool "${tool.name}" returned output that does not match its output schema: ${issues}`;
      return failure(toolError("tool_error", message, { retryable: false, issues: checked.issues }), attempt);
    }
  }
  return { ok: true, output, attempts: attempt };
}

function cancelled(tool: Tool, attempt: number): AttemptOutcome {
  return failure(toolError("cancelled", `The call to "${tool.name}" was cancelled.`, { retryable: false }), attempt);
}

function failure(error: ToolError, attempt: number): AttemptOutcome {
  return { ok: false, error: toCallError(error), cause: error, attempts: attempt };
}

/** Anything a tool threw → a CallError; ToolErrors keep their code, everything else is tool_error. */
function fromThrown(tool: Tool, thrown: unknown, attempt: number): AttemptOutcome {
  if (isToolError(thrown)) return failure(thrown, attempt);
  const message = thrown instanceof Error ? thrown.message : typeof thrown === "string" ? thrown : "unknown error";
  return failure(
    toolError("tool_error", `Tool "${tool.name}" failed: ${message}`, { retryable: true, cause: thrown }),
    attempt,
  );
}

function toCallError(error: ToolError): CallError {
  const out: CallError = { code: error.code, message: error.message };
  if (error.issues) out.issues = error.issues;
  if (error.retryAfterMs !== undefined) out.retryAfterMs = error.retryAfterMs;
  if (error.status !== undefined) out.status = error.status;
  return out;
}
