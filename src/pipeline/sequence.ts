import type { ToolCall } from "../tool-call";
import type { CallResult } from "../result";
import { admitArguments, checkAllowed, resolveTool, rewriteArguments } from "./admit";
import { runAttempts } from "./attempts";
import { claimCallId } from "./claim";
import type { PipelineEnv } from "./env";
import { internalError } from "./finish";
import { holdSlot } from "./gate";
import { decidePermission, parkForApproval } from "./permission";
import { createCallState, type CallState, type StepOutcome } from "./state";
import { isThenable } from "./thenable";

/**
 * Every call, in this order: one line per step, with the condition under which it has anything to
 * do. A step that ends the call (or must wait) returns; `from` resumes after a step that waited.
 */
function runSteps(state: CallState, from: number): CallResult | Promise<CallResult> {
  const { hooks, journal } = state.env;
  let ended: StepOutcome;
  try {
    // admit: the tool exists, may be used here, and its arguments parse, harden and validate
    if (from <= 0 && (ended = resolveTool(state)) !== undefined) return next(state, ended, 1);
    if (from <= 1 && hooks.isAllowed && (ended = checkAllowed(state)) !== undefined) return next(state, ended, 2);
    if (from <= 2 && (ended = admitArguments(state)) !== undefined) return next(state, ended, 3);
    if (from <= 3 && hooks.beforeCall && (ended = rewriteArguments(state)) !== undefined) return next(state, ended, 4);
    // permission: the tool's policy, then the permission hook (allow, deny, or approval)
    if (from <= 4 && (ended = decidePermission(state)) !== undefined) return next(state, ended, 5);
    // claim: the journal's check-and-write of the call id (new, replay or conflict); then a call that
    // needs approval is parked as pending
    if (from <= 5 && journal && (ended = claimCallId(state)) !== undefined) return next(state, ended, 6);
    if (from <= 6 && state.permission === "approval") return parkForApproval(state);
    // gate: a slot of the tool's concurrency gate (finish releases it)
    if (from <= 7 && state.tool!.policy.concurrency && (ended = holdSlot(state)) !== undefined) return next(state, ended, 8);
    // attempts: timeout, cancellation and retries; then finish masks, records and announces
    return next(state, runAttempts(state), 9);
  } catch (error) {
    return internalError(state, error);
  }
}

/** Runs one call through its steps. Never throws: a step that throws ends the call as `internal`. */
export function runCall(call: ToolCall, env: PipelineEnv, cancel: AbortSignal | undefined): CallResult | Promise<CallResult> {
  return runSteps(createCallState(call, env, cancel), 0);
}

/** A step's outcome: a result ends the call; a promise is awaited, then the call resumes at `after` (or ends). */
function next(state: CallState, outcome: StepOutcome, after: number): CallResult | Promise<CallResult> {
  if (outcome === undefined) return internalError(state, new Error("the last step did not end the call"));
  if (!isThenable(outcome)) return outcome;
  return outcome.then(
    (result) => (result === undefined ? runSteps(state, after) : result),
    (error: unknown) => internalError(state, error),
  );
}
