import { parseArguments } from "./arguments";
import { dropNullOptionals } from "../strict-nulls";
import { emit, isThenable, type AttemptOutcome } from "./attempt";
import { isToolError, type ErrorCode, type ValidationIssue } from "../errors";
import type { ToolCall } from "../formats/format";
import { hashJson } from "../hash";
import type { JsonValue } from "../json";
import type { HookCall } from "../hooks";
import type { ClaimWatch } from "../journal";
import type { ExecuteOptions } from "../options";
import { preparePipeline, type PipelineEnv } from "./env";
import { buildRecord, finish, mask, maskRecord, replay, type CallState } from "./finish";
import type { CallError, CallRecord, CallResult, PermissionDecision } from "../result";
import { runTool } from "./attempts";
import type { Tool } from "../tool";
import { describeIssues, withoutFinalStop } from "../validation";

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
  const env = preparePipeline(options);
  try {
    // Promise.resolve passes a pipeline promise through as it is and wraps a synchronous result.
    return Promise.resolve(runCall(call, env, options.signal));
  } catch (error) {
    // Only when recording an internal error fails too (a throwing mask hook): a rejection, as before.
    return Promise.reject(error);
  }
}

/**
 * Synchronous as far as the call allows: without hooks that may await, a journal or an async tool,
 * a call makes no promise at all (an async function would cost one per call).
 */
export function runCall(call: ToolCall, env: PipelineEnv, cancel: AbortSignal | undefined): CallResult | Promise<CallResult> {
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
  try {
    const tool = env.registry.get(state.name);
    if (!tool) return fail(state, "unknown_tool", unknownToolMessage(env, state.name));
    state.tool = tool;
    if (env.hooks.isAllowed || env.hooks.beforeCall || env.hooks.permission || env.journal) return runHooked(state, tool, call.arguments, cancel);
    const admitted = admit(state, tool, call.arguments);
    if (!admitted.ok) return admitted.result;
    const decision = policyPermission(env, tool, admitted.value);
    state.permission = decision;
    if (decision === "approval") return park(state);
    return run(state, tool, admitted.value, cancel);
  } catch (error) {
    return internalError(state, error);
  }
}

/** The whole pipeline with its awaiting steps: hooks that may be async and the journal's claim. */
async function runHooked(state: CallState, tool: Tool, raw: unknown, cancel: AbortSignal | undefined): Promise<CallResult> {
  const env = state.env;
  try {
    const hooks = env.hooks;
    const hookCall = hooks.isAllowed || hooks.beforeCall || hooks.permission ? { callId: state.callId, tenant: env.tenant, tool } : NO_HOOK_CALL;
    if (hooks.isAllowed && !(await hooks.isAllowed(hookCall))) {
      return fail(state, "denied", `Tool "${tool.name}" is not allowed here.`);
    }
    const admitted = admit(state, tool, raw);
    if (!admitted.ok) return admitted.result;
    let args: unknown = admitted.value;

    if (hooks.beforeCall) {
      const outcome = await hooks.beforeCall(hookCall, args);
      if (outcome && "deny" in outcome) return deny(state, outcome.deny);
      if (outcome && "args" in outcome) args = outcome.args;
    }
    const decision = hooks.permission ? await decidePermission(env, tool, hookCall, args) : policyPermission(env, tool, args);
    if (typeof decision === "object") return deny(state, decision.deny);
    state.permission = decision;

    let watch: ClaimWatch | undefined;
    if (env.journal) {
      const claim = await env.journal.begin({
        callId: state.callId,
        tool: tool.name,
        argsHash: hashJson({ tool: tool.name, args: state.args }),
        status: decision === "approval" ? "pending" : "running",
        ...(env.approved ? { approved: true } : {}),
        // The ledger keeps the unmasked arguments of a parked call so that an approval can run it.
        ...(decision === "approval" ? { args: state.args as JsonValue } : {}),
        record: maskRecord(env, buildRecord(state, decision === "approval" ? "pending" : "running")),
        ...(tool.policy.readOnly ? { readOnly: true } : {}),
        ...(tool.policy.idempotent ? { idempotent: true } : {}),
      });
      if (claim.kind === "replay") return replay(claim.record, tool);
      if (claim.kind === "conflict") return fail(state, "conflict", claim.message, undefined, { journal: false });
      // A cancel from elsewhere (POST /v1/calls/:id/cancel) reaches this call through the claim's signal.
      if (claim.signal) cancel = cancel ? AbortSignal.any([cancel, claim.signal]) : claim.signal;
      watch = claim.watch;
    }
    if (decision === "approval") return park(state);
    return run(state, tool, args, cancel, watch);
  } catch (error) {
    return internalError(state, error);
  }
}

type Admitted = { ok: true; value: unknown } | { ok: false; result: CallResult | Promise<CallResult> };

/** Parse and validate the arguments; state.args keeps them as parsed, for the record and the journal. */
function admit(state: CallState, tool: Tool, raw: unknown): Admitted {
  const parsed = parseArguments(raw, state.env.limits);
  if (!parsed.ok) {
    if (parsed.issues) state.validation = { ok: false, issues: parsed.issues };
    return { ok: false, result: fail(state, parsed.code, `Tool "${tool.name}": ${parsed.message}`, parsed.issues) };
  }
  state.args = parsed.value;
  // OpenAI strict mode sends null for an omitted optional: read it as omitted, for every format alike.
  const input = parsed.hasNull ? dropNullOptionals(tool.inputSchema, parsed.value) : parsed.value;
  const validated = tool.validateInput(input);
  if (!validated.ok) {
    state.validation = { ok: false, issues: validated.issues };
    const message = `Invalid arguments for tool "${tool.name}": ${withoutFinalStop(describeIssues(validated.issues))}. Fix them and call again.`;
    return { ok: false, result: fail(state, "invalid_arguments", message, validated.issues) };
  }
  state.validation = VALID;
  // The validator's own { ok, value }: no new object on the common path.
  return validated;
}

/** Run the tool and record its outcome; synchronous when the tool is. */
function run(state: CallState, tool: Tool, args: unknown, cancel: AbortSignal | undefined, watch?: ClaimWatch): CallResult | Promise<CallResult> {
  const env = state.env;
  if (cancel?.aborted) return fail(state, "cancelled", `The call to "${tool.name}" was cancelled before it started.`);
  const maskedArgs = env.hooks.onEvent || env.hooks.onStart ? mask(env, state.args) : undefined;
  const ran = runTool({ env, tool, callId: state.callId, args, maskedArgs, cancel, watch });
  return isThenable(ran) ? finishLater(state, ran) : finishRun(state, ran);
}

async function finishLater(state: CallState, ran: Promise<AttemptOutcome>): Promise<CallResult> {
  try {
    return await finishRun(state, await ran);
  } catch (error) {
    return internalError(state, error);
  }
}

function finishRun(state: CallState, outcome: AttemptOutcome): CallResult | Promise<CallResult> {
  state.attempts = outcome.attempts;
  // The outcome is the ending as it is: finish reads only ok, output and error.
  return finish(state, outcome);
}

/** A bug in a hook or in toolgate itself: still a result, never a crash. */
function internalError(state: CallState, error: unknown): CallResult | Promise<CallResult> {
  // A journal or limiter whose storage is overloaded says `busy` with when to retry: not a bug.
  if (isToolError(error) && error.code === "busy") {
    const busy: CallError = { code: "busy", message: error.message };
    if (error.retryAfterMs !== undefined) busy.retryAfterMs = error.retryAfterMs;
    return finish(state, { ok: false, error: busy });
  }
  const message = `Internal error while running "${state.name}": ${error instanceof Error ? error.message : String(error)}`;
  return finish(state, { ok: false, error: { code: "internal", message } });
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
