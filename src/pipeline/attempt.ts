import { isToolError, toolError, type ToolError } from "../errors";
import type { CallError, CallOutput } from "../result";
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
    return fromThrown(tool, error, attempt);
  }
  if (isThenable(returned)) return awaitAttempt(tool, returned, ctx, cancel);
  return checkOutput(tool, returned, attempt);
}

async function awaitAttempt(
  tool: Tool,
  work: PromiseLike<unknown>,
  ctx: CallContext,
  cancel: AbortSignal | undefined,
): Promise<AttemptOutcome> {
  const timeoutMs = tool.policy.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const settled = await settle(
    Promise.resolve(work),
    timeoutMs,
    { abort: (reason) => CallContext.abort(ctx, reason) },
    cancel,
  );
  const attempt = ctx.attempt;
  if (settled.kind === "timeout")
    return failure(toolError("timeout", `Tool "${tool.name}" did not finish within ${timeoutMs} ms.`), attempt);
  if (settled.kind === "cancelled") return cancelled(tool, attempt);
  if (settled.kind === "error") return fromThrown(tool, settled.error, attempt);
  return checkOutput(tool, settled.value, attempt);
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
