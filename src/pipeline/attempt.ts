import { isToolError, toolError, type ToolError } from "../errors";
import type { PipelineEnv } from "./env";
import { normaliseOutput, outputValue } from "./output";
import type { CallError, CallOutput } from "../result";
import { settle } from "../timeout";
import type { Progress, Tool, ToolContext, ToolLogger } from "../tool";
import { describeIssues } from "../validation";
import type { CallEvent } from "../events";

/** attempts: how many attempts ran up to and including this outcome (0 when none could start). */
export type AttemptOutcome = { ok: true; output: CallOutput; attempts: number } | { ok: false; error: CallError; cause: unknown; attempts: number };

/** Async tools without a timeout of their own get this one, so nothing holds a slot forever. */
export const DEFAULT_TIMEOUT_MS = 60_000;

export interface AttemptInput {
  env: PipelineEnv;
  tool: Tool;
  callId: string;
  args: unknown;
  attempt: number;
  cancel: AbortSignal | undefined;
}

/**
 * Runs the tool once: timeout, cancellation, thrown errors and output checks all become an outcome.
 * Synchronous when the tool is: most calls then cost no promise at all.
 */
export function runAttempt({ env, tool, callId, args, attempt, cancel }: AttemptInput): AttemptOutcome | Promise<AttemptOutcome> {
  if (cancel?.aborted) return cancelled(tool, attempt);
  const ctx = new CallContext(env, tool, callId, attempt);
  let returned: unknown;
  try {
    returned = tool.run(args, ctx);
  } catch (error) {
    return fromThrown(tool, error, attempt);
  }
  if (isThenable(returned)) return awaitAttempt(tool, returned, ctx, cancel);
  return checkOutput(tool, returned, attempt);
}

async function awaitAttempt(tool: Tool, work: PromiseLike<unknown>, ctx: CallContext, cancel: AbortSignal | undefined): Promise<AttemptOutcome> {
  const timeoutMs = tool.policy.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const settled = await settle(Promise.resolve(work), timeoutMs, { abort: (reason) => CallContext.abort(ctx, reason) }, cancel);
  const attempt = ctx.attempt;
  if (settled.kind === "timeout") return failure(toolError("timeout", `Tool "${tool.name}" did not finish within ${timeoutMs} ms.`), attempt);
  if (settled.kind === "cancelled") return cancelled(tool, attempt);
  if (settled.kind === "error") return fromThrown(tool, settled.error, attempt);
  return checkOutput(tool, settled.value, attempt);
}

function checkOutput(tool: Tool, returned: unknown, attempt: number): AttemptOutcome {
  const output = normaliseOutput(returned);
  if (typeof output === "string") return failure(toolError("tool_error", `Tool "${tool.name}" failed: ${output}`, { retryable: false }), attempt);
  if (tool.validateOutput) {
    const checked = tool.validateOutput(outputValue(returned));
    if (!checked.ok) {
      const message = `Tool "${tool.name}" returned output that does not match its output schema: ${describeIssues(checked.issues)}`;
      return failure(toolError("tool_error", message, { retryable: false, issues: checked.issues }), attempt);
    }
  }
  return { ok: true, output, attempts: attempt };
}

/**
 * ctx for one attempt. A class, not a literal with closures: it is built on every call. It also holds
 * the attempt's abort side, whose AbortController is created only when the tool reads ctx.signal:
 * most tools never do, and a controller per call is measurable on the hot path.
 */
class CallContext implements ToolContext {
  readonly tenant: string;
  readonly secrets: Readonly<Record<string, string>>;
  readonly fetch: typeof fetch;
  readonly log: ToolLogger;
  #controller: AbortController | undefined = undefined;
  #reason: string | undefined = undefined;
  constructor(
    private readonly env: PipelineEnv,
    private readonly tool: Tool,
    readonly callId: string,
    readonly attempt: number,
  ) {
    this.tenant = env.tenant;
    this.secrets = env.secrets;
    this.fetch = env.fetch;
    this.log = env.log;
  }
  get signal(): AbortSignal {
    this.#controller ??= new AbortController();
    if (this.#reason !== undefined && !this.#controller.signal.aborted) this.#controller.abort(this.#reason);
    return this.#controller.signal;
  }
  /** Fires the signal (now, or when first read); not on ToolContext, so a tool cannot call it. */
  static abort(ctx: CallContext, reason: string): void {
    ctx.#reason ??= reason;
    ctx.#controller?.abort(reason);
  }
  progress(update: Progress): void {
    const env = this.env;
    if (!env.hooks.onEvent) return;
    const message = update.message === undefined ? undefined : (env.mask(update.message) as string);
    const progress: Progress = message === undefined ? { ...update } : { ...update, message };
    emit(env, { type: "call.progress", at: env.now(), callId: this.callId, tenant: env.tenant, tool: this.tool.name, progress });
  }
}

export function emit(env: PipelineEnv, event: CallEvent): void {
  try {
    env.hooks.onEvent?.(event);
  } catch {
    // observers cannot break a call
  }
}

export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === "object" && value !== null && typeof (value as { then?: unknown }).then === "function";
}

function cancelled(tool: Tool, attempt: number): AttemptOutcome {
  return failure(toolError("cancelled", `The call to "${tool.name}" was cancelled.`, { retryable: false }), attempt);
}

function failure(error: ToolError, attempt: number): AttemptOutcome {
  return { ok: false, error: toCallError(error), cause: error, attempts: attempt };
}

/** Anything a tool threw → a CallError; ToolErrors keep their code, everything else is tool_error. */
function fromThrown(tool: Tool, thrown: unknown, attempt: number): AttemptOutcome {
  if (isToolError(thrown)) return failure(thrown, attempt);
  const message = thrown instanceof Error ? thrown.message : typeof thrown === "string" ? thrown : "unknown error";
  return failure(toolError("tool_error", `Tool "${tool.name}" failed: ${message}`, { retryable: true, cause: thrown }), attempt);
}

function toCallError(error: ToolError): CallError {
  const out: CallError = { code: error.code, message: error.message };
  if (error.issues) out.issues = error.issues;
  if (error.retryAfterMs !== undefined) out.retryAfterMs = error.retryAfterMs;
  if (error.status !== undefined) out.status = error.status;
  return out;
}
