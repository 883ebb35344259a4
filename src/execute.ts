import { parseArguments } from "./args";
import { dropNullOptionals } from "./strict-nulls";
import { emit, isThenable } from "./attempt";
import type { ErrorCode, ValidationIssue } from "./errors";
import type { ToolCall } from "./formats/format";
import { hashJson } from "./hash";
import type { JsonValue } from "./json";
import type { HookCall } from "./hooks";
import type { ExecuteOptions } from "./options";
import { preparePipeline, type PipelineEnv } from "./prepare";
import { buildRecord, finish, mask, maskRecord, replay, type CallState } from "./call-record";
import type { CallError, CallRecord, CallResult, PermissionDecision } from "./result";
import { runTool } from "./run-tool";
import type { Tool } from "./tool";
import { describeIssues } from "./validation";

// Stands in for the hook argument when no hook will read it (saves an object per call).
const NO_HOOK_CALL = Object.freeze({ callId: "", tenant: "", tool: undefined as unknown as Tool });
const NOT_VALIDATED = Object.freeze({ ok: false }) as CallRecord["validation"];
const VALID = Object.freeze({ ok: true }) as CallRecord["validation"];


/**
 * Run one tool call through the pipeline: resolve → allowed? → parse → validate → beforeCall →
 * permission → claim the call id → gate → run (timeout, cancellation, retries) → record → events.
 * Never throws: every failure is a CallResult with a code and a message a model can act on.
 */
export function executeCall(call: ToolCall, options: ExecuteOptions): Promise<CallResult> {
  return runCall(call, preparePipeline(options), options.signal);
}

export async function runCall(call: ToolCall, env: PipelineEnv, cancel: AbortSignal | undefined): Promise<CallResult> {
  const state: CallState = {
    env,
    callId: typeof call?.id === "string" && call.id !== "" ? call.id : `call_${crypto.randomUUID()}`,
    name: typeof call?.name === "string" ? call.name : String(call?.name),
    // Every field set up front: one object shape for the whole call keeps V8 on its fast path.
    tool: undefined,
    startedAt: env.now(),
    args: undefined,
    validation: NOT_VALIDATED,
    permission: undefined,
    attempts: 0,
  };
  // One async function for the whole call: each extra async layer costs a promise per call.
  try {
    const tool = env.registry.get(state.name);
    if (!tool) return fail(state, "unknown_tool", unknownToolMessage(env, state.name));
    state.tool = tool;
    const hooks = env.hooks;
    const hookCall = hooks.isAllowed || hooks.beforeCall || hooks.permission ? { callId: state.callId, tenant: env.tenant, tool } : NO_HOOK_CALL;
    if (env.hooks.isAllowed && !(await env.hooks.isAllowed(hookCall))) {
      return fail(state, "denied", `Tool "${tool.name}" is not allowed here.`);
    }

    const parsed = parseArguments(call.arguments, env.limits);
    if (!parsed.ok) return fail(state, parsed.code, `Tool "${tool.name}": ${parsed.message}`);
    state.args = parsed.value;
    // OpenAI strict mode sends null for an omitted optional: read it as omitted, for every format alike.
    const input = parsed.hasNull ? dropNullOptionals(tool.inputSchema, parsed.value) : parsed.value;
    const validated = tool.validateInput(input);
    if (!validated.ok) {
      state.validation = { ok: false, issues: validated.issues };
      const message = `Invalid arguments for tool "${tool.name}": ${describeIssues(validated.issues).replace(/\.$/, "")}. Fix them and call again.`;
      return fail(state, "invalid_arguments", message, validated.issues);
    }
    state.validation = VALID;
    let args: unknown = validated.value;

    if (env.hooks.beforeCall) {
      const outcome = await env.hooks.beforeCall(hookCall, args);
      if (outcome && "deny" in outcome) return deny(state, outcome.deny);
      if (outcome && "args" in outcome) args = outcome.args;
    }
    const decision = env.hooks.permission ? await decidePermission(env, tool, hookCall, args) : policyPermission(env, tool, args);
    if (typeof decision === "object") return deny(state, decision.deny);
    state.permission = decision;

    if (env.journal) {
      const claim = await env.journal.begin({
        callId: state.callId,
        tool: tool.name,
        argsHash: hashJson({ tool: tool.name, args: parsed.value }),
        status: decision === "approval" ? "pending" : "running",
        ...(env.approved ? { approved: true } : {}),
        // The ledger keeps the unmasked arguments of a parked call so that an approval can run it.
        ...(decision === "approval" ? { args: parsed.value as JsonValue } : {}),
        record: maskRecord(env, buildRecord(state, decision === "approval" ? "pending" : "running")),
      });
      if (claim.kind === "replay") return replay(claim.record, tool);
      if (claim.kind === "conflict") return fail(state, "conflict", claim.message, undefined, { journal: false });
      // A cancel from elsewhere (POST /v1/calls/:id/cancel) reaches this call through the claim's signal.
      if (claim.signal) cancel = cancel ? AbortSignal.any([cancel, claim.signal]) : claim.signal;
    }
    if (decision === "approval") return park(state);

    if (cancel?.aborted) return fail(state, "cancelled", `The call to "${tool.name}" was cancelled before it started.`);
    const maskedArgs = env.hooks.onEvent || env.hooks.onStart ? mask(env, state.args) : undefined;
    const ran = runTool({ env, tool, callId: state.callId, args, maskedArgs, cancel });
    const { outcome, attempts } = isThenable(ran) ? await ran : ran;
    state.attempts = attempts;
    return finish(state, outcome.ok ? { ok: true, output: outcome.output } : { ok: false, error: outcome.error });
  } catch (error) {
    // A bug in a hook or in toolgate itself: still a result, never a crash.
    const message = `Internal error while running "${state.name}": ${error instanceof Error ? error.message : String(error)}`;
    return finish(state, { ok: false, error: { code: "internal", message } });
  }
}

/** Tool policy first, then hooks; the first denial wins, and approval by an admin lifts "approval" only. */
async function decidePermission(env: PipelineEnv, tool: Tool, call: HookCall, args: unknown): Promise<PermissionDecision | { deny: string }> {
  const outcome = await env.hooks.permission?.(call, args);
  if (outcome === "deny") return { deny: `Tool "${tool.name}" is denied by policy.` };
  if (outcome && typeof outcome === "object") return outcome;
  if (outcome === "approval") return env.approved ? "allow" : "approval";
  return policyPermission(env, tool, args);
}

function policyPermission(env: PipelineEnv, tool: Tool, args: unknown): PermissionDecision {
  const approval = tool.policy.approval;
  if (approval === undefined || approval === "never" || env.approved) return "allow";
  return approval === "always" || (typeof approval === "function" && approval(args as never) === true) ? "approval" : "allow";
}

function unknownToolMessage(env: PipelineEnv, name: string): string {
  const names = env.registry.list().map((tool) => tool.name);
  const shown = names.slice(0, 20).join(", ");
  const more = names.length > 20 ? ` and ${names.length - 20} more` : "";
  return `Unknown tool "${name}". Available tools: ${shown || "none"}${more}.`;
}

function fail(state: CallState, code: ErrorCode, message: string, issues?: ValidationIssue[], opts?: { journal: boolean }): CallResult | Promise<CallResult> {
  const error: CallError = issues ? { code, message, issues } : { code, message };
  return finish(state, { ok: false, error }, opts);
}

function deny(state: CallState, reason: string): CallResult | Promise<CallResult> {
  state.permission = "deny";
  const tool = state.tool?.name ?? state.name;
  return fail(state, "denied", `The call to "${tool}" was denied: ${reason}`);
}

/** Parked for approval: the journal holds the pending row; the model is told to wait. */
function park(state: CallState): CallResult {
  const message =
    `Tool "${state.name}" needs approval before it runs. The call is pending as ${state.callId}; ` +
    `an admin can approve or deny it. Do not call it again; its outcome will be reported.`;
  const error: CallError = { code: "approval_required", message };
  const record = maskRecord(state.env, { ...buildRecord(state, "pending"), error });
  emit(state.env, { type: "approval.requested", at: state.env.now(), callId: state.callId, tenant: state.env.tenant, tool: state.name, record });
  return { ok: false, callId: state.callId, tool: state.name, error: record.error!, record };
}
