import { isToolError, toolError, type ToolError } from "./errors";
import type { PipelineEnv } from "./prepare";
import { normaliseOutput } from "./output";
import type { CallError, CallOutput } from "./result";
import { settle } from "./timeout";
import type { Progress, Tool, ToolContext, ToolLogger } from "./tool";
import { describeIssues } from "./validation";
import type { CallEvent } from "./events";

export type AttemptOutcome = { ok: true; output: CallOutput } | { ok: false; error: CallError; cause: unknown };

/** Async tools without a timeout of their own get this one, so nothing holds a slot forever. */
export const DEFAULT_TIMEOUT_MS = 60_000;

/**
 * The abort side of one attempt, created only when a tool looks at ctx.signal: most tools never do,
 * and an AbortController per call is measurable on the hot path.
 */
class AttemptAbort {
  private controller: AbortController | undefined;
  private reason: string | undefined;
  get signal(): AbortSignal {
    this.controller ??= new AbortController();
    if (this.reason !== undefined && !this.controller.signal.aborted) this.controller.abort(this.reason);
    return this.controller.signal;
  }
  abort(reason: string): void {
    this.reason ??= reason;
    this.controller?.abort(reason);
  }
}

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
  if (cancel?.aborted) return cancelled(tool);
  const abort = new AttemptAbort();
  let returned: unknown;
  try {
    returned = tool.run(args, new CallContext(env, tool, callId, attempt, abort));
  } catch (error) {
    return fromThrown(tool, error);
  }
  if (isThenable(returned)) return awaitAttempt(tool, returned, abort, cancel);
  return checkOutput(tool, returned);
}

async function awaitAttempt(tool: Tool, work: PromiseLike<unknown>, abort: AttemptAbort, cancel: AbortSignal | undefined): Promise<AttemptOutcome> {
  const timeoutMs = tool.policy.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const settled = await settle(Promise.resolve(work), timeoutMs, abort, cancel);
  if (settled.kind === "timeout") return failure(toolError("timeout", `Tool "${tool.name}" did not finish within ${timeoutMs} ms.`));
  if (settled.kind === "cancelled") return cancelled(tool);
  if (settled.kind === "error") return fromThrown(tool, settled.error);
  return checkOutput(tool, settled.value);
}

function checkOutput(tool: Tool, returned: unknown): AttemptOutcome {
  const normalised = normaliseOutput(returned);
  if (!normalised.ok) return failure(toolError("tool_error", `Tool "${tool.name}" failed: ${normalised.message}`, { retryable: false }));
  if (tool.validateOutput) {
    const checked = tool.validateOutput(normalised.value);
    if (!checked.ok) {
      const message = `Tool "${tool.name}" returned output that does not match its output schema: ${describeIssues(checked.issues)}`;
      return failure(toolError("tool_error", message, { retryable: false, issues: checked.issues }));
    }
  }
  return { ok: true, output: normalised.output };
}

/** ctx for one attempt. A class, not a literal with closures: it is built on every call. */
class CallContext implements ToolContext {
  readonly tenant: string;
  readonly secrets: Readonly<Record<string, string>>;
  readonly fetch: typeof fetch;
  readonly log: ToolLogger;
  constructor(
    private readonly env: PipelineEnv,
    private readonly tool: Tool,
    readonly callId: string,
    readonly attempt: number,
    private readonly abort: AttemptAbort,
  ) {
    this.tenant = env.tenant;
    this.secrets = env.secrets;
    this.fetch = env.fetch;
    this.log = env.log;
  }
  get signal(): AbortSignal {
    return this.abort.signal;
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

function cancelled(tool: Tool): AttemptOutcome {
  return failure(toolError("cancelled", `The call to "${tool.name}" was cancelled.`, { retryable: false }));
}

function failure(error: ToolError): AttemptOutcome {
  return { ok: false, error: toCallError(error), cause: error };
}

/** Anything a tool threw → a CallError; ToolErrors keep their code, everything else is tool_error. */
function fromThrown(tool: Tool, thrown: unknown): AttemptOutcome {
  if (isToolError(thrown)) return { ok: false, error: toCallError(thrown), cause: thrown };
  const message = thrown instanceof Error ? thrown.message : typeof thrown === "string" ? thrown : "unknown error";
  const error = toolError("tool_error", `Tool "${tool.name}" failed: ${message}`, { retryable: true, cause: thrown });
  return { ok: false, error: toCallError(error), cause: error };
}

function toCallError(error: ToolError): CallError {
  const out: CallError = { code: error.code, message: error.message };
  if (error.issues) out.issues = error.issues;
  if (error.retryAfterMs !== undefined) out.retryAfterMs = error.retryAfterMs;
  if (error.status !== undefined) out.status = error.status;
  return out;
}
