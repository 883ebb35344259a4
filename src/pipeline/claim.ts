import type { JournalClaim } from "../journal";
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
  const record = maskRecord(env, buildRecord(state, status));
  return env
    .journal!.begin({
      callId: state.callId,
      tool: state.tool!,
      args: state.args,
      status,
      approved: env.approved,
      record,
    })
    .then((claim) => claimed(state, claim));
}

function claimed(state: CallState, claim: JournalClaim): StepOutcome {
  if (claim.kind === "replay") return replay(claim.record, state.tool!);
  if (claim.kind === "conflict") return fail(state, "conflict", claim.message, undefined, { journal: false });
  if (claim.signal) state.cancel = state.cancel ? AbortSignal.any([state.cancel, claim.signal]) : claim.signal;
  state.watch = claim.watch;
  return undefined;
}
