import type { ToolCall } from "../tool-call";
import type { ExecuteOptions } from "../options";
import type { CallResult } from "../result";
import { preparePipeline } from "./env";
import { runCall } from "./sequence";

/**
 * Run one tool call through the pipeline (the steps are listed once, in sequence.ts): resolve →
 * admit (allowed, parse, validate, beforeCall) → permission → claim the call id → approval → gate →
 * attempts (timeout, cancellation, retries) → finish (mask, record, events).
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
