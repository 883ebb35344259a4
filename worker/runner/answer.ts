import type { JsonValue } from "../../src/json";
import type { CallRecord } from "../../src/result";
import { callDurable } from "../durable/call";
import type { LedgerAddress } from "../ledger/address";
import { DEFAULT_LEASE_MS } from "../ledger/journal";
import type { AnswerOutcome, Viewer } from "../ledger/types";
import type { RunnersAddress } from "./address";

/**
 * Answers to a call waiting for its caller's input (an MCP task's tasks/update, or POST
 * /v1/calls/:id/input): the ledger keeps those whose keys are open questions; once every question is
 * answered, the row runs again and the call's Runner runs the tool again with every answer so far. If
 * the Runner cannot take it, the record ends failed at once (rather than unknown when its lease lapses).
 */
export async function answerCall(
  ledger: LedgerAddress,
  runners: RunnersAddress | undefined,
  callId: string,
  viewer: Viewer,
  responses: Record<string, JsonValue>,
): Promise<AnswerOutcome> {
  // Not repeated: answers that reached the shard and are sent again would be ignored, and their run never started.
  const outcome = await callDurable(
    () => ledger.for(callId),
    (shard) => shard.answer(callId, viewer, responses, DEFAULT_LEASE_MS),
    { tries: 1 },
  );
  if (!outcome.ok || outcome.state !== "resume") return outcome;
  const taken = runners
    ? await callDurable(
        () => runners.for(callId),
        (runner) => runner.resume(outcome.owner, outcome.answers),
      ).catch(() => false)
    : false;
  if (taken) return outcome;
  const stored = outcome.entry.record;
  const message = "The call could not run on with its answers: the run that asked is no longer held.";
  const record: CallRecord = {
    ...stored,
    status: "failed",
    error: { code: "internal", message },
    durationMs: Date.now() - stored.startedAt,
  };
  await callDurable(
    () => ledger.for(callId),
    (shard) => shard.complete(outcome.owner, record),
  );
  return outcome;
}
