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
  readonly log: ToolLogger;
  /** When this attempt started (env.now()). */
  readonly startedAt: number;
  /** The attempt's upstream requests (through ctx.fetch): first start, last end, how many. */
  upstream: { startMs: number; endMs: number; requests: number } | undefined = undefined;
  #fetch: typeof fetch | undefined = undefined;
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
    this.log = env.log;
    this.startedAt = env.now();
    this.connectionToken = env.connectionTokens;
  }
  /** fetch bound to the egress policy (and traced), timing the attempt's upstream requests for its record. */
  get fetch(): typeof fetch {
    return (this.#fetch ??= this.#timedFetch());
  }
  #timedFetch(): typeof fetch {
    const { env, callId } = this.state;
    const inner = env.tracer ? env.tracer.fetch(callId, this.attempt, env.fetch) : env.fetch;
    return (input, init) => {
      const startMs = env.now();
      const upstream = (this.upstream ??= { startMs, endMs: startMs, requests: 0 });
      upstream.requests++;
      const ended = () => void (upstream.endMs = Math.max(upstream.endMs, env.now()));
      const response = inner(input, init);
      response.then(ended, ended);
      return response;
    };
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
