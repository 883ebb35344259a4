import { hashJson } from "../hash";
import type { JsonValue } from "../json";
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
  const journal = env.journal!;
  const tool = state.tool!;
  const pending = state.permission === "approval";
  return journal
    .begin({
      callId: state.callId,
      tool: tool.name,
      argsHash: hashJson({ tool: tool.name, args: state.args }),
      status: pending ? "pending" : "running",
      ...(env.approved ? { approved: true } : {}),
      // The ledger keeps the unmasked arguments of a parked call so that an approval can run it.
      ...(pending ? { args: state.args as JsonValue } : {}),
      record: maskRecord(env, buildRecord(state, pending ? "pending" : "running")),
      ...(tool.policy.readOnly ? { readOnly: true } : {}),
      ...(tool.policy.idempotent ? { idempotent: true } : {}),
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
