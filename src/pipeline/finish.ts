import { applyBudget, DEFAULT_OUTPUT_BUDGET } from "../budget";
import { isToolError, type ErrorCode, type ValidationIssue } from "../errors";
import type { JournalEnd } from "../journal";
import type { JsonValue } from "../json";
import { emit, type PipelineEnv } from "./env";
import type { CallError, CallOutput, CallRecord, CallResult } from "../result";
import { statusForError } from "../result";
import { canWaitFor } from "../ask";
import { holdForAnswers } from "./jobs";
import type { Tool } from "../tool";
import type { CallState } from "./state";

export function replay(stored: CallRecord, tool: Tool): CallResult {
  const record: CallRecord = { ...stored, replay: true };
  if (record.status === "succeeded") {
    const output = withinBudget(record.output ?? { content: [] }, tool, record.callId);
    return { ok: true, callId: record.callId, tool: record.tool, output, record };
  }
  const error = record.error ?? {
    code: "internal" as const,
    message: `The earlier call ${record.callId} ended ${record.status}.`,
  };
  return { ok: false, callId: record.callId, tool: record.tool, error, record };
}

export function buildRecord(state: CallState, status: CallRecord["status"]): CallRecord {
  const { env, tool } = state;
  const record: CallRecord = {
    callId: state.callId,
    tenant: env.tenant,
    tool: state.name,
    source: tool?.source ?? "",
    schemaHash: tool?.hash ?? "",
    validation: state.validation,
    attempts: state.attempts,
    startedAt: state.startedAt,
    durationMs: env.now() - state.startedAt,
    status,
    // Present even when undefined (JSON drops them): one record shape keeps property access fast.
    args: state.args as JsonValue | undefined,
    permission: state.permission,
    output: undefined,
    error: undefined,
    progress: state.progress,
  };
  const { gate } = state;
  if (gate) record.gate = { name: gate.name, waitedMs: gate.waitedMs ?? env.now() - gate.since };
  // Steps tell more than the record's one run only for a retried call or one with upstream requests.
  const { steps } = state;
  if (steps && (state.attempts > 1 || steps.some((step) => step.upstream))) record.steps = steps;
  // A traced call names its span: a run that continues it elsewhere (approved, resumed) joins its trace.
  const trace = env.tracer?.traceparentOf?.(state.callId, state.name);
  if (trace !== undefined) record.trace = trace;
  return record;
}

export function mask(env: PipelineEnv, value: unknown): JsonValue | undefined {
  return value === undefined || !env.masks ? (value as JsonValue | undefined) : env.mask(value as JsonValue);
}

export function maskRecord(env: PipelineEnv, record: CallRecord): CallRecord {
  if (!env.masks) return record;
  if (record.args !== undefined) record.args = env.mask(record.args);
  if (record.output) record.output = env.mask(record.output as unknown as JsonValue) as unknown as CallOutput;
  if (record.error) record.error = env.mask(record.error as unknown as JsonValue) as unknown as CallError;
  return record;
}

/** Cheap check first (text lengths), since nearly every output fits. */
/** A call of a request that asked a caller who answers later: held by the runner first (holdForAnswers). */
async function holdThenFinish(state: CallState, ending: Ending, opts?: { journal: boolean }): Promise<CallResult> {
  state.held = await holdForAnswers(state).catch(() => false);
  return finish(state, ending, opts);
}

/** What a call waiting for its caller's answers tells the model: its questions, and that it goes on. */
function waitingError(state: CallState): CallError {
  const keys = Object.keys(state.inputRequests!).join(", ");
  const message =
    `Tool "${state.name}" asked its caller (${keys}) and waits for the answers as call ${state.callId}; ` +
    `it then runs on and its outcome will be recorded and reported. Do not call it again.`;
  return { code: "input_required", message, inputRequests: state.inputRequests! };
}

/** A gated call frees its slot first (a failed release is reclaimed by the slot's lease). */
function releaseThenFinish(state: CallState, ending: Ending, opts?: { journal: boolean }): Promise<CallResult> {
  const slot = state.slot!;
  state.slot = undefined;
  const next = () => finish(state, ending, opts);
  return slot.release().then(next, next);
}

function withinBudget(output: CallOutput, tool: Tool | undefined, callId: string): CallOutput {
  const budget = tool?.policy.outputBudget ?? DEFAULT_OUTPUT_BUDGET;
  let size = 0;
  let hasText = false;
  for (const item of output.content) {
    if (item.type === "text") {
      size += item.text.length;
      hasText = true;
    } else if (item.type !== "image") {
      return applyBudget(output, budget, callId);
    }
  }
  if (!hasText && output.structured !== undefined) return applyBudget(output, budget, callId);
  return size <= budget ? output : applyBudget(output, budget, callId);
}

/** The id was recorded by an earlier or concurrent run: its outcome answers, or the conflict does. */
function settled(state: CallState, end: JournalEnd): CallResult {
  if (end.kind === "replay") return replay(end.record, state.tool!);
  const record = maskRecord(state.env, buildRecord(state, statusForError("conflict")));
  record.error = { code: "conflict", message: end.message };
  return { ok: false, callId: state.callId, tool: state.name, error: record.error, record };
}

type Ending = { ok: true; output: CallOutput } | { ok: false; error: CallError };

/**
 * Every call ends here: frees its gate slot, then masks, records and announces the outcome; the result
 * carries the same masked values as the record. Synchronous unless the slot's release or the journal
 * has to be awaited.
 */
export function finish(
  state: CallState,
  ending: Ending,
  opts?: { journal: boolean },
): CallResult | Promise<CallResult> {
  if (state.slot) return releaseThenFinish(state, ending, opts);
  const { env } = state;
  // A call whose caller answers later (a task, an HTTP call) waits for the answers rather than ending
  // asking. In a request, only once the runner holds it to run it again with them (a host's own run
  // is held already).
  const asked = !ending.ok && ending.error.code === "input_required" && canWaitFor(env.ask, state.inputRequests);
  if (asked && env.runner && state.held === undefined) return holdThenFinish(state, ending, opts);
  const waits = asked && (env.runner === undefined || state.held === true);
  const status = ending.ok ? "succeeded" : waits ? "awaiting_input" : statusForError(ending.error.code);
  const record = buildRecord(state, status);
  if (ending.ok) record.output = ending.output;
  else if (waits) record.error = waitingError(state);
  else
    record.error =
      ending.error.code === "input_required" && state.inputRequests
        ? { ...ending.error, inputRequests: state.inputRequests }
        : ending.error;
  maskRecord(env, record);
  try {
    env.hooks.onResult?.(record);
  } catch {
    // observers cannot change an outcome
  }
  if (env.hooks.onEvent) {
    emit(env, {
      type: "call.finished",
      at: env.now(),
      callId: state.callId,
      tenant: env.tenant,
      tool: state.name,
      record,
    });
  }
  // The model gets at most the tool's output budget; the record keeps everything (the ledger serves the rest).
  const result: CallResult = record.error
    ? { ok: false, callId: state.callId, tool: state.name, error: record.error, record }
    : {
        ok: true,
        callId: state.callId,
        tool: state.name,
        output: withinBudget(record.output!, state.tool, state.callId),
        record,
      };
  const journal = env.journal;
  if (!journal || opts?.journal === false) return result;
  return journal.finish(record).then(
    (end) => (end ? settled(state, end) : result),
    (error: unknown) => {
      env.log.error("toolgate: could not store the call record", { callId: state.callId, error: String(error) });
      return result;
    },
  );
}

export function fail(
  state: CallState,
  code: ErrorCode,
  message: string,
  issues?: ValidationIssue[],
  opts?: { journal: boolean },
): CallResult | Promise<CallResult> {
  const error: CallError = issues ? { code, message, issues } : { code, message };
  return finish(state, { ok: false, error }, opts);
}

export function deny(state: CallState, reason: string): CallResult | Promise<CallResult> {
  state.permission = "deny";
  return fail(state, "denied", `The call to "${state.tool?.name ?? state.name}" was denied: ${reason}`);
}

/** A bug in a hook or in toolgate itself: still a result, never a crash. */
export function internalError(state: CallState, error: unknown): CallResult | Promise<CallResult> {
  // A journal or limiter whose storage is overloaded says `busy` with when to retry: not a bug.
  if (isToolError(error) && error.code === "busy") {
    const busy: CallError = { code: "busy", message: error.message };
    if (error.retryAfterMs !== undefined) busy.retryAfterMs = error.retryAfterMs;
    return finish(state, { ok: false, error: busy });
  }
  const reason = error instanceof Error ? error.message : String(error);
  const message = `Internal error while running "${state.name}": ${reason}`;
  return finish(state, { ok: false, error: { code: "internal", message } });
}
