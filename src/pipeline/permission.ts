import { answersForms } from "../ask";
import type { PermissionDecision, CallError, CallResult } from "../result";
import type { Tool } from "../tool";
import { emit, type PipelineEnv } from "./env";
import { buildRecord, deny, fail, maskRecord } from "./finish";
import { isPlainObject, type JsonValue } from "../json";
import { hookCallOf, type CallState, type StepOutcome } from "./state";
import { isThenable } from "./thenable";
import type { PermissionOutcome } from "../hooks";

/**
 * allow, deny or approval: the tool's policy first, then the permission hook (the first denial wins;
 * an admin's approval lifts "approval" only). A call that needs approval is claimed first (the
 * journal keeps it pending) and then parked by parkForApproval.
 */
export function decidePermission(state: CallState): StepOutcome {
  const { env } = state;
  const tool = state.tool!;
  const permission = env.hooks.permission;
  if (!permission) {
    state.permission = policyPermission(env, tool, state.input);
    return state.permission === "allow" && tool.policy.approval === "user" && !env.approved
      ? askUser(state)
      : undefined;
  }
  const outcome = permission(hookCallOf(state), state.input);
  // A hook that answers at once keeps the call synchronous.
  return isThenable(outcome)
    ? Promise.resolve(outcome).then((settled) => decided(state, settled))
    : decided(state, outcome);
}

/** The permission hook's answer, then the tool's policy. */
function decided(state: CallState, outcome: PermissionOutcome): StepOutcome {
  const { env } = state;
  const tool = state.tool!;
  if (outcome === "deny") return deny(state, `Tool "${tool.name}" is denied by policy.`);
  if (outcome && typeof outcome === "object") return deny(state, outcome.deny);
  state.permission =
    outcome === "approval" ? (env.approved ? "allow" : "approval") : policyPermission(env, tool, state.input);
  return state.permission === "allow" && tool.policy.approval === "user" && !env.approved ? askUser(state) : undefined;
}

/** Parked for approval: the journal holds the pending row; the model is told to wait. */
export function parkForApproval(state: CallState): CallResult {
  const who = state.tool?.policy.approval === "user" ? "the user who made it (or an admin)" : "an admin";
  const message =
    `Tool "${state.name}" needs approval before it runs. The call is pending as ${state.callId}; ` +
    `${who} can approve or deny it. Do not call it again; its outcome will be reported.`;
  const error: CallError = { code: "approval_required", message };
  const record = maskRecord(state.env, { ...buildRecord(state, "pending"), error });
  emit(state.env, {
    type: "approval.requested",
    at: state.env.now(),
    callId: state.callId,
    tenant: state.env.tenant,
    tool: state.name,
    record,
  });
  return { ok: false, callId: state.callId, tool: state.name, error: record.error!, record };
}

/** The question approval: "user" asks, under this key, as ctx.ask would (ask.ts). */
export const USER_APPROVAL_KEY = "toolgate.approval";
const SHOWN_ARGUMENT_CHARS = 500;

/**
 * approval: "user": the person who made the call confirms it (an elicitation), answered with the call
 * made again (or, for a detached call run as a task, through the task: tasks/update). Accepted with
 * approve: true, it runs; any other answer denies it, and so does a question that gets no answer
 * (channel failures). A caller that cannot be asked, or decides apart (parksUserApproval), has the call
 * parked for its decision or an admin's, as "always" would.
 */
function askUser(state: CallState): StepOutcome {
  const { env } = state;
  const tool = state.tool!;
  if (!env.ask || env.ask.parksUserApproval || !answersForms(env.ask)) {
    state.permission = "approval";
    return undefined;
  }
  // A detached call whose caller answers later (a task) is confirmed in its run: its task asks.
  if (env.ask.waits && env.runner && tool.policy.execution === "detached") return undefined;
  const answer = env.ask.responses[USER_APPROVAL_KEY];
  const failure = env.ask.failures?.[USER_APPROVAL_KEY];
  if (answer === undefined && failure)
    return deny(state, `the user who made the call was asked and gave no answer (${failure.message})`);
  if (answer === undefined) {
    const shown = JSON.stringify(env.mask((state.args ?? {}) as JsonValue)).slice(0, SHOWN_ARGUMENT_CHARS);
    const message = `Allow ${tool.title ?? tool.name} (${tool.name}) to run with ${shown}?`;
    const requestedSchema = {
      type: "object",
      properties: { approve: { type: "boolean", title: "Approve", description: `Run ${tool.name} now` } },
      required: ["approve"],
    };
    state.inputRequests = {
      [USER_APPROVAL_KEY]: { method: "elicitation/create", params: { message, requestedSchema } },
    };
    return fail(
      state,
      "input_required",
      `Tool "${tool.name}" runs once the user who called it approves: call it again with the answer.`,
    );
  }
  if (
    isPlainObject(answer) &&
    answer.action === "accept" &&
    isPlainObject(answer.content) &&
    answer.content.approve === true
  )
    return undefined;
  return deny(state, "the user who made the call did not approve it");
}

function policyPermission(env: PipelineEnv, tool: Tool, args: unknown): PermissionDecision {
  const approval = tool.policy.approval;
  if (approval === undefined || approval === "never" || env.approved) return "allow";
  // "user" is "allow" here: askUser asks the caller next.
  return approval === "always" || (typeof approval === "function" && approval(args as never) === true)
    ? "approval"
    : "allow";
}
