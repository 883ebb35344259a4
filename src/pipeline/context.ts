import type { Progress, Tool, ToolContext, ToolLogger } from "../tool";
import { emit, type PipelineEnv } from "./env";

/**
 * ctx for one attempt. A class, not a literal with closures: it is built on every call. It also holds
 * the attempt's abort side, whose AbortController is created only when the tool reads ctx.signal:
 * most tools never do, and a controller per call is measurable on the hot path.
 */
export class CallContext implements ToolContext {
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

