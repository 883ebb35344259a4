import { gateName } from "../gates/key";
import type { ClaimWatch } from "../journal";
import type { CallError, CallResult } from "../result";
import type { Tool } from "../tool";
import { DEFAULT_TIMEOUT_MS } from "./attempt";
import { emit } from "./env";
import { fail, finish } from "./finish";
import type { CallState, StepOutcome } from "./state";

/** Extra lease time beyond the worst-case run, so a slow but healthy holder keeps its slot. */
const LEASE_GRACE_MS = 30_000;

/**
 * A slot of the tool's concurrency gate (policy.concurrency), from the limiter: at once, after
 * waiting in its queue, or `busy` / `cancelled`. finish releases the slot on every path.
 */
export function holdSlot(state: CallState): StepOutcome {
  const tool = state.tool!;
  const concurrency = tool.policy.concurrency!;
  let gate: string;
  try {
    gate = gateName(state.env.tenant, tool.name, concurrency, state.input, state.env.user);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    const message = `Could not compute the concurrency key of "${tool.name}": ${reason}`;
    return fail(state, "tool_error", message);
  }
  const { watch, cancel } = state;
  // The gate's rules travel whole; which gate (group, key) was settled above.
  const { group: _group, key: _key, ...rules } = concurrency;
  const attempts = tool.policy.retry?.attempts ?? 1;
  let waited = false;
  const { env } = state;
  const since = env.now();
  // The record names the gate without its key (which may come from the arguments) and tells the wait.
  const name = concurrency.group ? `group:${concurrency.group}` : `tool:${tool.name}`;
  state.gate = { name, since, waitedMs: undefined };
  return env.limiter
    .acquire({
      gate,
      rules,
      callId: state.callId,
      tool: tool.name,
      leaseMs: (tool.policy.timeoutMs ?? DEFAULT_TIMEOUT_MS) * attempts + LEASE_GRACE_MS,
      ...(cancel ? { signal: cancel } : {}),
      ...(watch ? { onQueued: () => ((waited = true), watch.queued()) } : {}),
    })
    .then((grant) => {
      state.gate!.waitedMs = env.now() - since;
      if (env.hooks.onEvent) {
        const { callId, name: tool } = state;
        emit(env, {
          type: "gate.decided",
          at: env.now(),
          callId,
          tenant: env.tenant,
          tool,
          gate,
          since,
          granted: grant.ok,
        });
      }
      if (!grant.ok) {
        const error: CallError =
          grant.code === "busy"
            ? { code: "busy", message: `Tool "${tool.name}" is busy: ${grant.message}. Try again later.` }
            : { code: "cancelled", message: `The call to "${tool.name}" was cancelled while waiting for a slot.` };
        if (grant.retryAfterMs !== undefined) error.retryAfterMs = grant.retryAfterMs;
        return finish(state, { ok: false, error });
      }
      state.slot = grant;
      if (grant.waited) waited = true;
      // A cancel accepted while the call waited may not have reached it yet: the journal decides.
      return waited && watch ? refusedStart(state, tool, watch) : undefined;
    });
}

/** A call that got its slot after waiting but must not start ends here; undefined when it may start. */
async function refusedStart(state: CallState, tool: Tool, watch: ClaimWatch): Promise<undefined | CallResult> {
  let mayStart: boolean;
  try {
    mayStart = await watch.mayStart();
  } catch {
    // Starting could run a call whose cancel was accepted: it does not start.
    return fail(
      state,
      "internal",
      `The call to "${tool.name}" did not start: ` +
        `its journal could not confirm that it was not cancelled while it waited.`,
    );
  }
  return mayStart
    ? undefined
    : fail(state, "cancelled", `The call to "${tool.name}" was cancelled while waiting for a slot.`);
}
