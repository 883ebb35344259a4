import type { CallToClaim, JournalClaim } from "../journal";
import type { CallRecord } from "../result";
import { buildRecord, fail, maskRecord, replay } from "./finish";
import type { CallState, StepOutcome } from "./state";

/**
 * The journal claims the call id in one check-and-write: a new id goes on; the same id with the same
 * tool and arguments answers its recorded outcome (replay) without running; other arguments answer
 * `conflict`. A cancel from another request reaches the call through the claim's signal.
 */
export function claimCallId(state: CallState): StepOutcome {
  const { env } = state;
  const status = state.permission === "approval" ? "pending" : "running";
  return env.journal!.begin(toClaim(state, status)).then((claim) => claimed(state, claim));
}

/**
 * The call as its journal claims it. Its record so far is built and masked when the journal reads it,
 * once: a journal that defers the claim of a short call never does, and the call's record is made
 * once, at its finish.
 */
function toClaim(state: CallState, status: CallToClaim["status"]): CallToClaim {
  let record: CallRecord | undefined;
  return {
    callId: state.callId,
    tool: state.tool!,
    args: state.args,
    status,
    approved: state.env.approved,
    get record() {
      record ??= maskRecord(state.env, buildRecord(state, status));
      return record;
    },
  };
}

function claimed(state: CallState, claim: JournalClaim): StepOutcome {
  if (claim.kind === "replay") return replay(claim.record, state.tool!);
  if (claim.kind === "conflict") return fail(state, "conflict", claim.message, undefined, { journal: false });
  if (claim.signal) state.cancel = state.cancel ? AbortSignal.any([state.cancel, claim.signal]) : claim.signal;
  state.watch = claim.watch;
  return undefined;
}
