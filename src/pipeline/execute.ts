import type { ToolCall } from "../tool-call";
import type { ExecuteOptions } from "../options";
import type { CallResult } from "../result";
import { preparePipeline } from "./env";
import { runCall } from "./sequence";
import { isThenable } from "./thenable";

/**
 * Run one tool call through the pipeline, answering the result itself when nothing had to be awaited:
 * the tool returned a value (not a promise) and no hook, journal, limiter, retry wait or detach waited.
 * Otherwise a Promise of the result (`instanceof Promise` tells which). The steps, results, records
 * and events are executeCall's: it is this call wrapped in a promise.
 */
export function executeCallNow(call: ToolCall, options: ExecuteOptions): CallResult | Promise<CallResult> {
  const env = preparePipeline(options);
  let ran: CallResult | PromiseLike<CallResult>;
  try {
    ran = runCall(call, env, options.signal);
  } catch (error) {
    // Only when recording an internal error fails too (a throwing mask hook): a rejection, as executeCall's.
    return Promise.reject(error);
  }
  // Promise.resolve passes the pipeline's own promise through as it is, and makes a real Promise of a
  // thenable that a host's journal or hook answered with.
  return isThenable(ran) ? Promise.resolve(ran) : ran;
}

/**
 * Run one tool call through the pipeline (the steps are listed once, in sequence.ts): resolve →
 * admit (allowed, parse, validate, beforeCall) → permission → claim the call id → approval → gate →
 * attempts (timeout, cancellation, retries) → finish (mask, record, events).
 * Never throws: every failure is a CallResult with a code and a message a model can act on.
 */
export function executeCall(call: ToolCall, options: ExecuteOptions): Promise<CallResult> {
  // Promise.resolve passes the pipeline's promise through as it is and wraps a synchronous result.
  return Promise.resolve(executeCallNow(call, options));
}
