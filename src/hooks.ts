import type { JsonValue } from "./json";
import type { CallEvent } from "./events";
import type { CallRecord, PermissionDecision } from "./result";
import type { Tool } from "./tool";

export interface HookCall {
  callId: string;
  tenant: string;
  tool: Tool;
}

/** What beforeCall may answer: nothing (go on), new arguments, or a denial. */
export type BeforeCallOutcome = void | undefined | { args: unknown } | { deny: string };
export type PermissionOutcome = void | undefined | PermissionDecision | { deny: string };

/**
 * Ways to customise the pipeline without forking it. Composed in order by composeHooks(): the first
 * denial wins, argument rewrites chain, masks apply one after the other, events go to every listener.
 */
export interface Hooks {
  /** Before the tool may be used at all (e.g. a tenant's allow-list). false → denied. */
  isAllowed?(call: HookCall): boolean | Promise<boolean>;
  /** After validation, before any side effect: rewrite arguments (inject credentials) or deny. */
  beforeCall?(call: HookCall, args: unknown): BeforeCallOutcome | Promise<BeforeCallOutcome>;
  /** Decide allow / deny / approval beyond the tool's own policy (e.g. all high-risk tools need approval). */
  permission?(call: HookCall, args: unknown): PermissionOutcome | Promise<PermissionOutcome>;
  /** Redact what leaves the pipeline: records, events, logs. Receives JSON values and returns masked copies. */
  mask?(value: JsonValue): JsonValue;
  /** Lifecycle events (started, progress, finished, approval requested). Errors thrown here are ignored. */
  onEvent?(event: CallEvent): void;
  /** The terminal record of every call. */
  onResult?(record: CallRecord): void;
  /** Override the retry decision after a failed attempt; undefined keeps the default. */
  shouldRetry?(call: HookCall, error: unknown, attempt: number): boolean | undefined;
}
