import type { AskChannel } from "./ask";
import type { CallJournal } from "./journal";
import type { CallRunner } from "./runner";
import type { Hooks } from "./hooks";
import type { Limiter } from "./gates/limiter";
import type { Registry } from "./registry";
import type { CallTracer } from "./tracer";
import type { ConnectionTokens, ToolLogger } from "./tool";
import type { CallUser } from "./contract/users";

export interface Limits {
  /** Largest arguments, in UTF-16 code units of their JSON text. Default 1 MiB. */
  maxArgumentBytes: number;
  /** Deepest nesting of arguments. Default 64. */
  maxArgumentDepth: number;
}

/** Everything executeCall / executeBatch need besides the calls. */
export interface ExecuteOptions {
  registry: Registry;
  /** Tenant name, recorded and passed to tools. Default "default". */
  tenant?: string;
  /** Secret values by name: given to tools as ctx.secrets, and masked everywhere. */
  secrets?: Readonly<Record<string, string>>;
  /** The fetch tools get as ctx.fetch (the Worker passes an egress-checked one). Default globalThis.fetch. */
  fetch?: typeof fetch;
  hooks?: Hooks | readonly Hooks[];
  /** Enforces policy.concurrency; without one, gated tools run unlimited in-process. */
  limiter?: Limiter;
  /** Records and idempotency by call id. */
  journal?: CallJournal;
  /** Runs calls whose policy is detached or auto beyond the request (needs a journal to carry the record). */
  runner?: CallRunner;
  /** The caller's cancellation (client gone, batch abort). */
  signal?: AbortSignal;
  /**
   * The user the calls are made for (a person, or the user an app acts for): tools read it as ctx.user,
   * hooks as call.user, and a gate keyed "@user" has one gate per user. Absent: made for nobody.
   */
  user?: CallUser;
  /**
   * The calling user's tokens of the host's connections, for tools acting as the user (ctx.connectionToken).
   * Absent: such tools are refused.
   */
  connectionTokens?: ConnectionTokens;
  /** Run as approved: skips the approval requirement (the admin decided). */
  approved?: boolean;
  limits?: Partial<Limits>;
  log?: ToolLogger;
  /** Who made the call can be asked (ctx.ask): the answers it carries and what it answers. Default: nobody. */
  ask?: AskChannel;
  /** Traces the calls (OpenTelemetry spans: src/telemetry/). Default: none, and nothing of it runs. */
  tracer?: CallTracer;
  /** Clock, for tests. Default Date.now. */
  now?: () => number;
}

export interface BatchOptions extends ExecuteOptions {
  /** How many calls run at once. Default 8. */
  maxParallel?: number;
  /** continue (default): every call runs; abort: after the first failure the rest answer cancelled. */
  onError?: "continue" | "abort";
}
