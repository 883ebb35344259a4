import * as v from "valibot";
import type { RpcNotification } from "../../../src/mcp/messages";
import { callDurable } from "../../durable/call";
import type { LedgerAddress } from "../../ledger/address";
import type { Viewer } from "../../ledger/types";
import type { AskStore } from "./ask-store";
import { sessionCallId, sessionCallPrefix } from "./call-ids";

/**
 * Cancels of a legacy session's calls, from whichever isolate receives them: through the ledger, as
 * POST /v1/calls/:id/cancel does (the call's journal, watching its row, aborts it where it runs).
 */

const CancelledParams = v.object({ requestId: v.union([v.string(), v.number()]), reason: v.optional(v.string()) });

/**
 * A call may not be in the ledger yet when its cancel arrives (its claim is on its way, or deferred:
 * a read-only call is claimed after its first second): the cancel is tried again meanwhile.
 */
const RETRY_MS = 250;
const RETRY_FOR_MS = 3_000;

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A cancel that comes before the call asks anything is kept this long, so the questions it
 * asks a moment later are not sent.
 */
const CANCEL_MARK_MS = 10 * 60_000;

export interface CancelTarget {
  ledger: LedgerAddress;
  /** The questions the session's calls put to its client (legacy-ask.ts). */
  asks: AskStore;
  viewer: Viewer;
  sessionRef: string;
}

/**
 * notifications/cancelled: the cancel of the call its requestId made, tried until the ledger knows
 * the call (bounded). A call that asked its client runs on under another id (a round): its questions
 * stop waiting, and the round it runs as is cancelled too.
 */
export async function cancelByNotification(notification: RpcNotification, target: CancelTarget): Promise<void> {
  if (notification.method !== "notifications/cancelled") return;
  const parsed = v.safeParse(CancelledParams, notification.params ?? {});
  if (!parsed.success) return;
  const { requestId, reason } = parsed.output;
  const callId = sessionCallId(target.sessionRef, requestId);
  const why = `The MCP client cancelled the call${reason ? `: ${reason.slice(0, 200)}` : "."}`;
  const asking = target.asks.cancel(callId, why, Date.now() + CANCEL_MARK_MS).catch(() => callId);
  await Promise.all([
    cancelUntilKnown(target, callId, why),
    asking.then((round) => (round === callId ? undefined : cancelUntilKnown(target, round, why))),
  ]);
}

async function cancelUntilKnown(target: CancelTarget, callId: string, why: string): Promise<void> {
  const until = Date.now() + RETRY_FOR_MS;
  for (;;) {
    const outcome = await callDurable(
      () => target.ledger.for(callId),
      (ledger) => ledger.cancel(callId, target.viewer, why),
      { tries: 1 },
    ).catch(() => undefined);
    if ((outcome && (outcome.ok || outcome.error === "finished")) || Date.now() + RETRY_MS > until) return;
    await pause(RETRY_MS);
  }
}

/** DELETE of a session: the cancel of its running calls, on every shard. */
export async function cancelSessionCalls(target: CancelTarget): Promise<void> {
  const prefix = sessionCallPrefix(target.sessionRef);
  const reason = "The MCP client ended its session.";
  await Promise.all(
    (await target.ledger.all()).map((shard) =>
      callDurable(shard, (ledger) => ledger.cancelCallsWithPrefix(prefix, target.viewer, reason)).catch(
        () => undefined,
      ),
    ),
  );
}
