import * as v from "valibot";
import { callDurable } from "../durable/call";
import type { LedgerAddress } from "../ledger/address";
import type { Viewer } from "../ledger/types";
import { sessionCallId, sessionCallPrefix } from "./call-ids";
import type { RpcNotification } from "./protocol";

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

export interface CancelTarget {
  ledger: LedgerAddress;
  viewer: Viewer;
  sessionRef: string;
}

/** notifications/cancelled: the cancel of the call its requestId made, tried until the ledger knows the call (bounded). */
export async function cancelByNotification(notification: RpcNotification, target: CancelTarget): Promise<void> {
  if (notification.method !== "notifications/cancelled") return;
  const parsed = v.safeParse(CancelledParams, notification.params ?? {});
  if (!parsed.success) return;
  const { requestId, reason } = parsed.output;
  const callId = sessionCallId(target.sessionRef, requestId);
  const why = `The MCP client cancelled the call${reason ? `: ${reason.slice(0, 200)}` : "."}`;
  const until = Date.now() + RETRY_FOR_MS;
  for (;;) {
    const outcome = await callDurable(() => target.ledger.for(callId), (ledger) => ledger.cancel(callId, target.viewer, why), { tries: 1 }).catch(() => undefined);
    if ((outcome && (outcome.ok || outcome.error === "finished")) || Date.now() + RETRY_MS > until) return;
    await pause(RETRY_MS);
  }
}

/** DELETE of a session: the cancel of its running calls, on every shard. */
export async function cancelSessionCalls(target: CancelTarget): Promise<void> {
  const prefix = sessionCallPrefix(target.sessionRef);
  const reason = "The MCP client ended its session.";
  await Promise.all((await target.ledger.all()).map((shard) => callDurable(shard, (ledger) => ledger.cancelCallsWithPrefix(prefix, target.viewer, reason)).catch(() => undefined)));
}
