import { applyBudget, DEFAULT_OUTPUT_BUDGET } from "../budget";
import { emit } from "./attempt";
import type { JournalEnd } from "../journal";
import type { JsonValue } from "../json";
import type { PipelineEnv } from "./env";
import type { CallError, CallOutput, CallRecord, CallResult, PermissionDecision } from "../result";
import { statusForError } from "../result";
import type { Tool } from "../tool";

/** What the pipeline knows about a call so far; becomes its record. */
export interface CallState {
  env: PipelineEnv;
  callId: string;
  name: string;
  tool: Tool | undefined;
  startedAt: number;
  args: unknown;
  validation: CallRecord["validation"];
  permission: PermissionDecision | undefined;
  attempts: number;
}

export function replay(stored: CallRecord, tool: Tool): CallResult {
  const record: CallRecord = { ...stored, replay: true };
  if (record.status === "succeeded") {
    const output = withinBudget(record.output ?? { content: [] }, tool, record.callId);
    return { ok: true, callId: record.callId, tool: record.tool, output, record };
  }
  const error = record.error ?? { code: "internal" as const, message: `The earlier call ${record.callId} ended ${record.status}.` };
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
  };
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
 * Masks, records and announces the outcome; the result carries the same masked values as the record.
 * Synchronous unless a journal has to store the record.
 */
export function finish(state: CallState, ending: Ending, opts?: { journal: boolean }): CallResult | Promise<CallResult> {
  const { env } = state;
  const status = ending.ok ? "succeeded" : statusForError(ending.error.code);
  const record = buildRecord(state, status);
  if (ending.ok) record.output = ending.output;
  else record.error = ending.error;
  maskRecord(env, record);
  try {
    env.hooks.onResult?.(record);
  } catch {
    // observers cannot change an outcome
  }
  if (env.hooks.onEvent) {
    emit(env, { type: "call.finished", at: env.now(), callId: state.callId, tenant: env.tenant, tool: state.name, record });
  }
  // The model gets at most the tool's output budget; the record keeps everything (the ledger serves the rest).
  const result: CallResult = record.error
    ? { ok: false, callId: state.callId, tool: state.name, error: record.error, record }
    : { ok: true, callId: state.callId, tool: state.name, output: withinBudget(record.output!, state.tool, state.callId), record };
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

