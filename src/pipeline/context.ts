import {
  ASK_KEY_PATTERN,
  askedKind,
  canBeAsked,
  inputRequiredError,
  type AskMethod,
  type ElicitationMode,
  type InputRequest,
} from "../ask";
import { toolError } from "../errors";
import type { JsonValue } from "../json";
import type { ConnectionTokens, Progress, ToolContext, ToolLogger, ToolSpan } from "../tool";
import type { CallUser } from "../contract/users";
import { emit } from "./env";
import type { CallState } from "./state";

/**
 * ctx for one attempt. A class, not a literal with closures: it is built on every call. It also holds
 * the attempt's abort side, whose AbortController is created only when the tool reads ctx.signal:
 * most tools never do, and a controller per call is measurable on the hot path.
 */
export class CallContext implements ToolContext {
  readonly tenant: string;
  readonly callId: string;
  readonly secrets: Readonly<Record<string, string>>;
  readonly user: Readonly<CallUser> | undefined;
  readonly fetch: typeof fetch;
  readonly log: ToolLogger;
  readonly connectionToken: ConnectionTokens | undefined;
  #controller: AbortController | undefined = undefined;
  #reason: string | undefined = undefined;
  constructor(
    private readonly state: CallState,
    readonly attempt: number,
  ) {
    const env = state.env;
    this.tenant = env.tenant;
    this.callId = state.callId;
    this.secrets = env.secrets;
    this.user = env.user;
    this.fetch = env.tracer ? env.tracer.fetch(state.callId, attempt, env.fetch) : env.fetch;
    this.log = env.log;
    this.connectionToken = env.connectionTokens;
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
  span(name: string, attributes: Readonly<Record<string, string | number | boolean>>): ToolSpan | undefined {
    return this.state.env.tracer?.span?.(this.callId, name, attributes);
  }
  canAsk(method: AskMethod, mode: ElicitationMode = "form"): boolean {
    // An elicitation's mode counts too: a client that declared URL mode alone cannot answer a form.
    return canBeAsked(this.state.env.ask, {
      method,
      params: method === "elicitation/create" && mode === "url" ? { mode } : {},
    });
  }

  /**
   * The answer the call carries, or the question noted for the call's ending (input_required). Every
   * question asked before the rejection is handled is noted: questions asked together are asked together.
   */
  ask(key: string, request: InputRequest): Promise<JsonValue> {
    const { state } = this;
    if (!ASK_KEY_PATTERN.test(key))
      return Promise.reject(new TypeError(`ctx.ask: the key ${JSON.stringify(key)} must match ${ASK_KEY_PATTERN}`));
    // Noted even when it cannot be asked: the host tells the caller what it would have to answer.
    if (!canBeAsked(state.env.ask, request)) {
      (state.inputRequests ??= {})[key] = request;
      return Promise.reject(
        toolError(
          "input_required",
          `Tool "${state.name}" asks its caller (${askedKind(request)}), and this caller cannot be asked that.`,
          { retryable: false },
        ),
      );
    }
    const { responses, failures } = state.env.ask!;
    if (Object.hasOwn(responses, key)) return Promise.resolve(responses[key]!);
    const failure = failures && Object.hasOwn(failures, key) ? failures[key]! : undefined;
    if (failure) return Promise.reject(toolError(failure.code, failure.message, { retryable: false }));
    (state.inputRequests ??= {})[key] = request;
    return Promise.reject(inputRequiredError(state.name, Object.keys(state.inputRequests)));
  }

  progress(update: Progress): void {
    const { state } = this;
    const env = state.env;
    const journal = env.journal?.progress ? env.journal : undefined;
    const message = update.message === undefined ? undefined : (env.mask(update.message) as string);
    const progress: Progress = message === undefined ? { ...update } : { ...update, message };
    // The record keeps the latest progress, so every surface (events, GET, the console) can show it.
    state.progress = progress;
    journal?.progress?.(this.callId, progress);
    if (env.hooks.onEvent)
      emit(env, {
        type: "call.progress",
        at: env.now(),
        callId: this.callId,
        tenant: env.tenant,
        tool: state.name,
        progress,
      });
  }
}
