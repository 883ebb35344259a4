import type { InputRequest } from "../ask";
import type { ToolCall } from "../tool-call";
import type { HookCall } from "../hooks";
import type { ClaimWatch } from "../journal";
import type { SlotGrant } from "../gates/limiter";
import type { CallRecord, CallResult, CallStep, PermissionDecision, Progress } from "../result";
import type { Tool } from "../tool";
import type { PipelineEnv } from "./env";

/** What the pipeline knows about one call so far: each step reads and fills it; it becomes the record. */
export interface CallState {
  env: PipelineEnv;
  callId: string;
  name: string;
  /** The arguments as the format delivered them (JSON text or a parsed value). */
  raw: unknown;
  startedAt: number;
  /** Set by the first step: the tool of that name. */
  tool: Tool | undefined;
  /** The arguments as parsed, for the record and the journal (never rewritten by hooks). */
  args: unknown;
  /** What the tool runs with: validated, then perhaps rewritten by beforeCall. */
  input: unknown;
  validation: CallRecord["validation"];
  permission: PermissionDecision | undefined;
  attempts: number;
  /** The caller's cancellation, joined with the journal's (a cancel from another request). */
  cancel: AbortSignal | undefined;
  /** The journal's hold on a claimed call that may wait at a gate. */
  watch: ClaimWatch | undefined;
  /** The latest progress the tool reported (ctx.progress), kept in the record. */
  progress: Progress | undefined;
  /** The gate slot this call holds; finish releases it. */
  slot: Extract<SlotGrant, { ok: true }> | undefined;
  /** What the tool asked its caller and the call did not carry the answer to (ctx.ask). */
  inputRequests: Record<string, InputRequest> | undefined;
  /** Whether the runner holds this call of a request to run it again with its caller's answers (finish). */
  held: boolean | undefined;
  /** The gate the call asked a slot of (no key: tool:<name> or group:<name>), and how long it waited. */
  gate: { name: string; since: number; waitedMs: number | undefined } | undefined;
  /** Attempts worth showing (retried, failed, or with upstream requests): the record's steps. */
  steps: CallStep[] | undefined;
}

const NOT_VALIDATED = Object.freeze({ ok: false }) as CallRecord["validation"];

export function createCallState(call: ToolCall, env: PipelineEnv, cancel: AbortSignal | undefined): CallState {
  // Every field set up front: one object shape for the whole call keeps V8 on its fast path.
  return {
    env,
    callId: typeof call?.id === "string" && call.id !== "" ? call.id : `call_${crypto.randomUUID()}`,
    name: typeof call?.name === "string" ? call.name : String(call?.name),
    raw: call?.arguments,
    startedAt: env.now(),
    tool: undefined,
    args: undefined,
    input: undefined,
    validation: NOT_VALIDATED,
    permission: undefined,
    attempts: 0,
    cancel,
    watch: undefined,
    progress: undefined,
    slot: undefined,
    inputRequests: undefined,
    held: undefined,
    gate: undefined,
    steps: undefined,
  };
}

/** The hooks' view of the call (after resolveTool). */
export function hookCallOf(state: CallState): HookCall {
  const { env } = state;
  return env.user
    ? { callId: state.callId, tenant: env.tenant, tool: state.tool!, user: env.user }
    : { callId: state.callId, tenant: env.tenant, tool: state.tool! };
}

/**
 * What a step answers: undefined lets the call go on to the next step; a result (or a promise of one)
 * ends it. Steps with nothing to await answer synchronously, so a call that needs no hook, journal,
 * gate or async tool runs without a single promise.
 */
export type StepOutcome = undefined | CallResult | Promise<undefined | CallResult>;
