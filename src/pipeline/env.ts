import { DEFAULT_LIMITS } from "./arguments";
import { composeHooks, type Hooks } from "../hooks";
import type { JsonValue } from "../json";
import { createMasker } from "../mask";
import type { Limits, ExecuteOptions } from "../options";
import type { AskChannel } from "../ask";
import type { CallJournal } from "../journal";
import type { CallRunner } from "../runner";
import type { Limiter } from "../gates/limiter";
import type { Registry } from "../registry";
import type { ConnectionTokens, ToolLogger } from "../tool";
import { processLimiter } from "../gates/process-limiter";
import type { CallEvent } from "../events";
import type { CallUser } from "../contract/users";
import type { CallTracer } from "../tracer";

/** ExecuteOptions resolved once: hooks composed, masker built, defaults filled in. */
export interface PipelineEnv {
  registry: Registry;
  tenant: string;
  secrets: Readonly<Record<string, string>>;
  fetch: typeof fetch;
  hooks: Hooks;
  mask: (value: JsonValue) => JsonValue;
  /** False when mask is the identity (no secrets, no custom mask, nobody observing): masking can be skipped. */
  masks: boolean;
  limiter: Limiter;
  journal: CallJournal | undefined;
  /** The host of detached runs; undefined: every call runs inline. */
  runner: CallRunner | undefined;
  approved: boolean;
  /** The user the calls are made for (frozen: tools and hooks read it, none may change it). */
  user: Readonly<CallUser> | undefined;
  /** The user's tokens of the host's connections (ctx.connectionToken); undefined: none. */
  connectionTokens: ConnectionTokens | undefined;
  /** The caller's answers and what it can be asked (ctx.ask); undefined: it cannot be asked. */
  ask: AskChannel | undefined;
  limits: Limits;
  log: ToolLogger;
  /** Traces the calls; undefined: nothing is traced. */
  tracer: CallTracer | undefined;
  now: () => number;
}

const NO_SECRETS: Readonly<Record<string, string>> = Object.freeze({});
const silent = () => {};
const SILENT_LOGGER: ToolLogger = Object.freeze({ debug: silent, info: silent, warn: silent, error: silent });
// Workers throw "Illegal invocation" when fetch is called detached from globalThis.
const globalFetch: typeof fetch = (input, init) => fetch(input, init);

const identity = <T>(value: T): T => value;

const cache = new WeakMap<ExecuteOptions, PipelineEnv>();

/** Runs on every call: only the lookup here, so that it stays small enough to inline. */
export function preparePipeline(options: ExecuteOptions): PipelineEnv {
  return cache.get(options) ?? buildPipeline(options);
}

function buildPipeline(options: ExecuteOptions): PipelineEnv {
  const given =
    options.hooks === undefined ? [] : Array.isArray(options.hooks) ? options.hooks : [options.hooks as Hooks];
  const { tracer } = options;
  // The tracer hears every event, after the caller's own hooks.
  const hookList: readonly Hooks[] = tracer ? [...given, { onEvent: (event) => tracer.onEvent(event) }] : given;
  const hooks = hookList.length === 0 ? {} : composeHooks(hookList);
  const secrets = options.secrets ?? NO_SECRETS;
  const secretValues = Object.values(secrets);
  const customMask = hooks.mask;
  // Masking protects what leaves the pipeline for someone else: secrets in anything, and sensitive
  // keys in what observers (journal, events, results hooks, logs) see. With no secrets and no
  // observer, the record goes back only to the caller who supplied its data: nothing to hide.
  const observed = !!(options.journal || hooks.onEvent || hooks.onResult || hooks.onStart || options.log);
  const masks = secretValues.length > 0 || observed || customMask !== undefined;
  const secretMask = secretValues.length > 0 || observed ? createMasker(secretValues) : identity;
  const env: PipelineEnv = {
    registry: options.registry,
    tenant: options.tenant ?? "default",
    secrets,
    fetch: options.fetch ?? globalFetch,
    hooks,
    mask: customMask ? (value) => customMask(secretMask(value)) : secretMask,
    masks,
    limiter: options.limiter ?? processLimiter,
    journal: tracer && options.journal ? tracer.journal(options.journal) : options.journal,
    // Detaching needs a journal: the record is what tells the caller how the call ended.
    runner: options.journal ? options.runner : undefined,
    approved: options.approved ?? false,
    user: options.user ? Object.freeze({ ...options.user }) : undefined,
    connectionTokens: options.connectionTokens,
    ask: options.ask,
    limits: { ...DEFAULT_LIMITS, ...options.limits },
    log: options.log ?? SILENT_LOGGER,
    tracer,
    now: options.now ?? Date.now,
  };
  cache.set(options, env);
  return env;
}

/** An event to the onEvent hook; observers cannot break a call. */
export function emit(env: PipelineEnv, event: CallEvent): void {
  try {
    env.hooks.onEvent?.(event);
  } catch {
    // observers cannot break a call
  }
}
