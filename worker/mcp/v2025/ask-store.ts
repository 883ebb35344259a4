import { callDurable } from "../../durable/call";
import type { LedgerAddress } from "../../ledger/address";
import type { AskAnswerOutcome, AskState } from "../../ledger/asks";

/**
 * The questions a legacy session's call put to its client, on the ledger shard of the call's id
 * (worker/ledger/asks.ts): the request that waits and the POSTs that answer share nothing else.
 */
export interface AskStore {
  /** A round's questions are sent: answers the cancel that came before them, or null. */
  open(callId: string, roundCallId: string, askIds: string[], expiresAt: number): Promise<string | null>;
  answer(callId: string, askId: string, response: string): Promise<AskAnswerOutcome>;
  /** Waits (bounded by waitMs) for every answer or a cancel; all answered, the call goes on as nextRoundCallId. */
  wait(callId: string, waitMs: number, nextRoundCallId: string): Promise<AskState | null>;
  /** Answers the id of the round the call runs as (for its cancel). */
  cancel(callId: string, reason: string, expiresAt: number): Promise<string>;
  close(callId: string): Promise<void>;
}

export function createAskStore(ledger: LedgerAddress): AskStore {
  const shard = (callId: string) => () => ledger.for(callId);
  return {
    open: (callId, roundCallId, askIds, expiresAt) =>
      callDurable(shard(callId), (stub) => stub.openAsks(callId, roundCallId, askIds, expiresAt)),
    answer: (callId, askId, response) => callDurable(shard(callId), (stub) => stub.answerAsk(callId, askId, response)),
    wait: (callId, waitMs, nextRoundCallId) =>
      callDurable(shard(callId), (stub) => stub.awaitAsks(callId, waitMs, nextRoundCallId)),
    cancel: (callId, reason, expiresAt) =>
      callDurable(shard(callId), (stub) => stub.cancelAsks(callId, reason, expiresAt)),
    close: (callId) => callDurable(shard(callId), (stub) => stub.closeAsks(callId)),
  };
}
