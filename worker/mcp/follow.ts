import type { CallRecord, Progress } from "../../src/result";
import { callDurable } from "../durable/call";
import type { LedgerAddress } from "../ledger/address";
import { TERMINAL } from "../ledger/records";
import type { LedgerEntry, Viewer } from "../ledger/types";

/** Where a call that runs on elsewhere is followed: the tenant's ledger, as the caller may see it. */
export interface FollowTarget {
  ledger: LedgerAddress;
  viewer: Viewer;
  /** Keeps the cancel of an abandoned call going after the request's answer (the request's ctx.waitUntil). */
  waitUntil?: (promise: Promise<unknown>) => void;
  /** A waiting call was cancelled (tasks/cancel): what else it held goes (a call parked for a connection). */
  cancelled?: (entry: LedgerEntry) => Promise<void>;
}

/** A client waiting for progress hears of it about this often (the journal writes it at most once a second). */
export const PROGRESS_POLL_MS = 1_000;
/** Without progress to relay, one long-poll of the record per this long. */
const LONG_POLL_MS = 25_000;

/**
 * Waits for the outcome of a call that runs on beyond the pipeline's answer (a detached call in its
 * Runner, an `auto` call past detachAfterMs) while the MCP client stays connected: long-polls its
 * record, hands each new progress to `onProgress`, and answers the final record. When `signal` aborts
 * (the client closed the stream, or its request was cancelled) the call is cancelled through the
 * ledger, as POST /v1/calls/:id/cancel would, and undefined is answered; so it is when the ledger
 * cannot be read (the call goes on; its outcome will be recorded).
 */
export async function followCall(
  callId: string,
  target: FollowTarget,
  signal: AbortSignal,
  onProgress?: (progress: Progress) => void,
): Promise<CallRecord | undefined> {
  const stub = () => target.ledger.for(callId);
  const aborted = new Promise<"aborted">((resolve) => {
    if (signal.aborted) resolve("aborted");
    else signal.addEventListener("abort", () => resolve("aborted"), { once: true });
  });
  const waitMs = onProgress ? PROGRESS_POLL_MS : LONG_POLL_MS;
  for (;;) {
    const entry = await Promise.race([
      callDurable(stub, (ledger) => ledger.get(callId, target.viewer, waitMs)).catch(() => null),
      aborted,
    ]);
    if (entry === "aborted") {
      const reason = "The MCP client closed the request that was waiting for this call.";
      const cancelling = callDurable(stub, (ledger) => ledger.cancel(callId, target.viewer, reason), {
        tries: 1,
      }).catch(() => undefined);
      target.waitUntil?.(cancelling);
      return undefined;
    }
    if (!entry) return undefined;
    if (entry.record.progress) onProgress?.(entry.record.progress);
    if (TERMINAL.has(entry.record.status)) return entry.record;
  }
}
