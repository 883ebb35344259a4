import type { CallResult, CallError } from "../result";
import { buildRecord, internalError, maskRecord } from "./finish";
import type { CallState, StepOutcome } from "./state";
import { jobOf } from "./jobs";
import { isThenable } from "./thenable";

/** Auto calls are answered as running once they have run this long. */
export const DEFAULT_DETACH_AFTER_MS = 5_000;

/**
 * execution "detached": the journal hands the claimed call to the runner, which runs it to its end
 * beyond this request; the caller is answered that it runs as soon as the call is claimed. Without a claim to hand
 * (a journal that cannot), the call runs inline.
 */
export function detachCall(state: CallState): StepOutcome {
  const { env } = state;
  const handOff = env.journal!.handOff;
  if (!handOff) return undefined;
  return handOff.call(env.journal, state.callId).then((claim) => {
    if (!claim) return undefined;
    // The caller hears at once that the call runs; the runner takes it meanwhile (the journal keeps
    // the request alive until then). Should the runner not take it, the call is still this
    // journal's and ends here, with why, in its record.
    env.runner!.detach(jobOf(state, claim.owner)).then(
      () => claim.release(),
      (error: unknown) => void internalError(state, error),
    );
    const result = runningResult(state);
    // No call.finished here (the runner's run finishes it): the tracer ends this request's part of it.
    env.tracer?.handedOff?.(result.record);
    return result;
  });
}

/**
 * execution "auto": the rest of the call runs here; if it has not ended after detachAfterMs, the
 * caller is answered that it runs, the call goes on in this request (the journal keeps it alive and
 * finishes its record), and the runner stands by to settle it by its policy should the request die.
 */
export function detachAfter(
  state: CallState,
  rest: () => CallResult | Promise<CallResult>,
): CallResult | Promise<CallResult> {
  const run = rest();
  if (!isThenable(run)) return run;
  const { env } = state;
  const afterMs = state.tool!.policy.detachAfterMs ?? DEFAULT_DETACH_AFTER_MS;
  return new Promise<CallResult>((resolve) => {
    const timer = setTimeout(async () => {
      const claim = await env.journal!.handOff?.(state.callId).catch(() => undefined);
      // Standing by is best effort: without it a lost request still ends the call unknown (its lease).
      if (claim) void env.runner!.standby?.(jobOf(state, claim.owner)).catch(() => undefined);
      resolve(runningResult(state));
    }, afterMs);
    run.then((result) => {
      clearTimeout(timer);
      resolve(result);
    });
  });
}

/** What the caller gets for a call that goes on: its record (running) and where its outcome will be. */
function runningResult(state: CallState): CallResult {
  const message =
    `The call ${state.callId} to "${state.name}" runs on, detached from this request; its outcome will be recorded ` +
    `and reported. Do not call it again.`;
  const error: CallError = { code: "running", message };
  const record = maskRecord(state.env, { ...buildRecord(state, "running"), error });
  return { ok: false, callId: state.callId, tool: state.name, error: record.error!, record };
}
