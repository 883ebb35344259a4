import type { PermissionDecision, CallError, CallResult } from "../result";
import type { Tool } from "../tool";
import { emit, type PipelineEnv } from "./env";
import { buildRecord, deny, maskRecord } from "./finish";
import { hookCallOf, type CallState, type StepOutcome } from "./state";

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
    return undefined;
  }
  return Promise.resolve(permission(hookCallOf(state), state.input)).then((outcome) => {
    if (outcome === "deny") return deny(state, `Tool "${tool.name}" is denied by policy.`);
    if (outcome && typeof outcome === "object") return deny(state, outcome.deny);
    state.permission = outcome === "approval" ? (env.approved ? "allow" : "approval") : policyPermission(env, tool, state.input);
    return undefined;
  });
}

/** Parked for approval: the journal holds the pending row; the model is told to wait. */
export function parkForApproval(state: CallState): CallResult {
  const message =
    `Tool "${state.name}" needs approval before it runs. The call is pending as ${state.callId}; ` +
    `an admin can approve or deny it. Do not call it again; its outcome will be reported.`;
  const error: CallError = { code: "approval_required", message };
  const record = maskRecord(state.env, { ...buildRecord(state, "pending"), error });
  emit(state.env, { type: "approval.requested", at: state.env.now(), callId: state.callId, tenant: state.env.tenant, tool: state.name, record });
  return { ok: false, callId: state.callId, tool: state.name, error: record.error!, record };
}

function policyPermission(env: PipelineEnv, tool: Tool, args: unknown): PermissionDecision {
  const approval = tool.policy.approval;
  if (approval === undefined || approval === "never" || env.approved) return "allow";
  return approval === "always" || (typeof approval === "function" && approval(args as never) === true) ? "approval" : "allow";
}
