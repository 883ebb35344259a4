import type { JsonValue } from "./json";
import type { CallEvent } from "./events";
import type { CallRecord, PermissionDecision } from "./result";
import type { Tool } from "./tool";
import type { CallUser } from "./contract/users";

export interface HookCall {
  callId: string;
  tenant: string;
  tool: Tool;
  /** The user the call is made for (ExecuteOptions.user); absent: nobody. */
  user?: Readonly<CallUser>;
}

/** What beforeCall may answer: nothing (go on), new arguments, or a denial. */
export type BeforeCallOutcome = void | undefined | { args: unknown } | { deny: string };
export type PermissionOutcome = void | undefined | PermissionDecision | { deny: string };
/**
 * What shouldRetry may answer after a failed attempt: undefined keeps the default decision; a boolean
 * overrides it (a retry then waits the policy's backoff); `{ retry: true, delayMs }` retries after
 * exactly delayMs (an upstream's own hint, a per-tool schedule). The pipeline waits only while the
 * call's budget allows (see Hooks.shouldRetry); a cancel ends the wait.
 */
export type RetryDecision = boolean | { retry: boolean; delayMs?: number } | undefined;

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
  /** Lifecycle events (started, progress, finished, approval requested, gate, attempt). Errors here are ignored. */
  onEvent?(event: CallEvent): void;
  /** Each attempt as it starts (the call.started event). */
  onStart?(event: Extract<CallEvent, { type: "call.started" }>): void;
  /** The terminal record of every call. */
  onResult?(record: CallRecord): void;
  /**
   * Override the retry decision after a failed attempt (only tools with a retry policy, while
   * attempts remain); undefined keeps the default. A delay must end early enough for the next attempt
   * to run its whole timeout within the call's budget (timeoutMs × retry.attempts from the first
   * attempt, what its concurrency slot is leased for); a longer one is not waited out: the call ends
   * with the failure, its retryAfterMs the delay.
   */
  shouldRetry?(call: HookCall, error: unknown, attempt: number): RetryDecision;
}

/** One Hooks object from many, applied in order: first denial wins, rewrites chain, masks compose. */
export function composeHooks(list: readonly Hooks[]): Hooks {
  if (list.length === 1) return list[0]!;
  const pick = <K extends keyof Hooks>(key: K) =>
    list.map((h) => h[key]).filter((f): f is NonNullable<Hooks[K]> => !!f);
  const isAllowed = pick("isAllowed");
  const beforeCall = pick("beforeCall");
  const permission = pick("permission");
  const masks = pick("mask");
  const onEvent = pick("onEvent");
  const onStart = pick("onStart");
  const onResult = pick("onResult");
  const shouldRetry = pick("shouldRetry");
  const composed: Hooks = {};
  if (isAllowed.length) {
    composed.isAllowed = async (call) => {
      for (const hook of isAllowed) if (!(await hook(call))) return false;
      return true;
    };
  }
  if (beforeCall.length) {
    composed.beforeCall = async (call, args) => {
      let current = args;
      let rewritten = false;
      for (const hook of beforeCall) {
        const outcome = await hook(call, current);
        if (outcome && "deny" in outcome) return outcome;
        if (outcome && "args" in outcome) {
          current = outcome.args;
          rewritten = true;
        }
      }
      return rewritten ? { args: current } : undefined;
    };
  }
  if (permission.length) {
    composed.permission = async (call, args) => {
      let needsApproval = false;
      for (const hook of permission) {
        const outcome = await hook(call, args);
        // The plain verdict passes through, so the pipeline words it the same as for a single hook.
        if (outcome === "deny") return outcome;
        if (outcome && typeof outcome === "object") return outcome;
        if (outcome === "approval") needsApproval = true;
      }
      return needsApproval ? "approval" : undefined;
    };
  }
  if (masks.length) composed.mask = (value) => masks.reduce((acc, mask) => mask(acc), value);
  // A listener that throws must not keep the others from hearing about the call.
  if (onEvent.length)
    composed.onEvent = (event) => {
      for (const hook of onEvent) quietly(() => hook(event));
    };
  if (onStart.length)
    composed.onStart = (event) => {
      for (const hook of onStart) quietly(() => hook(event));
    };
  if (onResult.length)
    composed.onResult = (record) => {
      for (const hook of onResult) quietly(() => hook(record));
    };
  if (shouldRetry.length) {
    composed.shouldRetry = (call, error, attempt) => {
      for (const hook of shouldRetry) {
        const answer = hook(call, error, attempt);
        if (answer !== undefined) return answer;
      }
      return undefined;
    };
  }
  return composed;
}

function quietly(run: () => void): void {
  try {
    run();
  } catch {
    // listeners are observers; their failures are theirs
  }
}
