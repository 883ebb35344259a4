import type { ToolCall } from "../tool-call";
import type { CallResult } from "../result";
import { admitArguments, checkAllowed, resolveTool, rewriteArguments } from "./admit";
import { runAttempts } from "./attempts";
import { claimCallId } from "./claim";
import type { PipelineEnv } from "./env";
import { internalError } from "./finish";
import { holdSlot } from "./gate";
import { detachAfter, detachCall } from "./detach";
import { decidePermission, parkForApproval } from "./permission";
import { createCallState, type CallState, type StepOutcome } from "./state";
import { isThenable } from "./thenable";

/**
 * The steps where a call may resume, in order: each line of runSteps runs while the call has not gone
 * past its step, and a step that waited resumes the call at the next one. Plain numbers: comparing
 * them costs what comparing literals does (names looked up in an object cost 40–80 more instructions
 * per call under callgrind).
 */
const RESOLVE = 0;
const ALLOWED = 1;
const ARGUMENTS = 2;
const REWRITE = 3;
const PERMISSION = 4;
const CLAIM = 5;
const APPROVAL = 6;
const DETACH = 7;
const GATE = 8;
const ATTEMPTS = 9;
type Step =
  | typeof RESOLVE
  | typeof ALLOWED
  | typeof ARGUMENTS
  | typeof REWRITE
  | typeof PERMISSION
  | typeof CLAIM
  | typeof APPROVAL
  | typeof DETACH
  | typeof GATE
  | typeof ATTEMPTS;

/**
 * Every call, in this order: one line per step, with the condition under which it has anything to
 * do. A step that ends the call (or must wait) returns; one that waited resumes the call at step `from`.
 */
function runSteps(state: CallState, from: Step): CallResult | Promise<CallResult> {
  const { hooks, journal, runner } = state.env;
  let ended: StepOutcome;
  try {
    // admit: the tool exists, may be used here, and its arguments parse, harden and validate
    if (from <= RESOLVE && (ended = resolveTool(state)) !== undefined) return next(state, ended, ALLOWED);
    if (from <= ALLOWED && hooks.isAllowed && (ended = checkAllowed(state)) !== undefined)
      return next(state, ended, ARGUMENTS);
    if (from <= ARGUMENTS && (ended = admitArguments(state)) !== undefined) return next(state, ended, REWRITE);
    if (from <= REWRITE && hooks.beforeCall && (ended = rewriteArguments(state)) !== undefined)
      return next(state, ended, PERMISSION);
    // permission: the tool's policy, then the permission hook (allow, deny, or approval)
    if (from <= PERMISSION && (ended = decidePermission(state)) !== undefined) return next(state, ended, CLAIM);
    // claim: the journal's check-and-write of the call id (new, replay or conflict); then a call that
    // needs approval is parked as pending
    if (from <= CLAIM && journal && (ended = claimCallId(state)) !== undefined) return next(state, ended, APPROVAL);
    if (from <= APPROVAL && state.permission === "approval") return parkForApproval(state);
    // detach: a detached call goes on in the runner (the caller learns it runs); an auto call runs on
    // here and is answered as running once it has run detachAfterMs
    if (from <= DETACH && runner && state.tool!.policy.execution) {
      const execution = state.tool!.policy.execution;
      if (execution === "detached" && (ended = detachCall(state)) !== undefined) return next(state, ended, GATE);
      if (execution === "auto") return detachAfter(state, () => runSteps(state, GATE));
    }
    // gate: a slot of the tool's concurrency gate (finish releases it)
    if (from <= GATE && state.tool!.policy.concurrency && (ended = holdSlot(state)) !== undefined)
      return next(state, ended, ATTEMPTS);
    // attempts: timeout, cancellation and retries; then finish masks, records and announces
    return next(state, runAttempts(state), undefined);
  } catch (error) {
    return internalError(state, error);
  }
}

/** Runs one call through its steps. Never throws: a step that throws ends the call as `internal`. */
export function runCall(
  call: ToolCall,
  env: PipelineEnv,
  cancel: AbortSignal | undefined,
): CallResult | Promise<CallResult> {
  return runSteps(createCallState(call, env, cancel), RESOLVE);
}

/**
 * A step's outcome: a result ends the call; a promise is awaited, then the call resumes at step
 * `resumeAt` (or ends). After the last step (`resumeAt` undefined), nothing may be left to do.
 */
function next(state: CallState, outcome: StepOutcome, resumeAt: Step | undefined): CallResult | Promise<CallResult> {
  if (outcome === undefined) return unended(state);
  if (!isThenable(outcome)) return outcome;
  return outcome.then(
    (result) => (result !== undefined ? result : resumeAt !== undefined ? runSteps(state, resumeAt) : unended(state)),
    (error: unknown) => internalError(state, error),
  );
}

const unended = (state: CallState) => internalError(state, new Error("the last step did not end the call"));
