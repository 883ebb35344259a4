import { executeBatch } from "../pipeline/batch";
import { ApiError, isApiError, type Transport } from "./http";
import type { AnswerOf } from "../contract/tools";
import { getFormat } from "../formats";
import type { FormatName } from "../formats/index";
import type { ToolCall } from "../tool-call";
import { isRecord } from "../formats/shared";
import type { BatchOptions } from "../options";
import type { Registry } from "../registry";
import { resultOfRecord, type CallError, type CallRecord, type CallResult } from "../result";

export interface MixedOptions<F extends FormatName> extends Omit<BatchOptions, "registry"> {
  /** Tools that run here (in the page or the process), by the core's pipeline. Every other call goes to the API. */
  localRegistry: Registry;
  /** The format of the model output and of the answer. */
  format: F;
}

export interface MixedAnswer<F extends FormatName> {
  format: F;
  /** Exactly what the app appends to its conversation, in input order. */
  answer: AnswerOf<F>;
  results: CallResult[];
}

function isToolCallList(value: unknown): value is ToolCall[] {
  return (
    Array.isArray(value) &&
    value.every(
      (item) => isRecord(item) && typeof item.id === "string" && typeof item.name === "string" && "arguments" in item,
    )
  );
}

/**
 * The API itself failed (network, auth, limits): each remote call becomes a failed result, so the answer stays whole.
 */
function failedResult(call: ToolCall, error: unknown): CallResult {
  const api = isApiError(error) ? error : undefined;
  const callError: CallError = {
    code: api?.status === 429 ? "busy" : "upstream_error",
    message: `The toolgate API failed: ${api ? `${api.code}: ${api.message}` : String(error)}`,
    ...(api?.retryAfterMs === undefined ? {} : { retryAfterMs: api.retryAfterMs }),
    ...(api && api.status > 0 ? { status: api.status } : {}),
  };
  const record: CallRecord = {
    callId: call.id,
    tenant: "",
    tool: call.name,
    source: "",
    schemaHash: "",
    validation: { ok: true },
    attempts: 0,
    startedAt: Date.now(),
    durationMs: 0,
    status: "failed",
    error: callError,
  };
  return { ok: false, callId: call.id, tool: call.name, error: callError, record };
}

/** Edge calls go in one request (OpenAI tool_calls carry any arguments as JSON text); the records make the results. */
async function runRemote(
  transport: Transport,
  calls: readonly ToolCall[],
  signal?: AbortSignal,
): Promise<CallResult[]> {
  const body = calls.map((call) => ({
    id: call.id,
    type: "function",
    function: {
      name: call.name,
      arguments: typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments ?? {}),
    },
  }));
  try {
    const answer = await transport.json<{ calls: CallRecord[] }>("/v1/calls/openai", {
      body,
      ...(signal ? { signal } : {}),
    });
    return calls.map((call, i) => {
      const record = answer.calls[i];
      return record
        ? resultOfRecord(record)
        : failedResult(call, new Error("the API answered fewer calls than it was sent"));
    });
  } catch (error) {
    return calls.map((call) => failedResult(call, error));
  }
}

/**
 * Run a batch whose calls are split between local tools and the API, and answer once, in input
 * order. `input` is the model's output in `options.format`, or already decoded ToolCalls. Never
 * throws for a call's failure (those are results); only a body that is not `format`'s tool calls throws.
 */
export async function runMixed<F extends FormatName>(
  transport: Transport,
  input: unknown,
  options: MixedOptions<F>,
): Promise<MixedAnswer<F>> {
  const { localRegistry, format: name, ...batch } = options;
  const format = getFormat(name);
  if (!format) throw new ApiError(400, "unknown_format", `Unknown format "${name}".`);
  let calls: ToolCall[];
  if (isToolCallList(input)) calls = input;
  else {
    const decoded = format.decode(input);
    if (!decoded.ok) throw new ApiError(400, "invalid_calls", `Not ${name} tool calls: ${decoded.message}`);
    calls = decoded.calls;
  }
  const local: number[] = [];
  const remote: number[] = [];
  for (const [i, call] of calls.entries()) (localRegistry.has(call.name) ? local : remote).push(i);
  const [localResults, remoteResults] = await Promise.all([
    local.length > 0
      ? executeBatch(
          local.map((i) => calls[i]!),
          { ...batch, registry: localRegistry },
        )
      : [],
    remote.length > 0
      ? runRemote(
          transport,
          remote.map((i) => calls[i]!),
          batch.signal,
        )
      : [],
  ]);
  const results = new Array<CallResult>(calls.length);
  for (const [i, index] of local.entries()) results[index] = localResults[i]!;
  for (const [i, index] of remote.entries()) results[index] = remoteResults[i]!;
  return { format: name, answer: format.encode(results) as AnswerOf<F>, results };
}
