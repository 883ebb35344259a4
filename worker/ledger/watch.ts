import { toolError } from "../../src/errors";
import { callDurable } from "../durable/call";
import type { LedgerStub } from "./address";

/** A claimed call's watch loop: now() starts it before its delay (the call started waiting at a gate). */
export interface Watching {
  now(): void;
  stop(): void;
}

export interface WatchTarget {
  /** A fresh stub of the call's shard, per try. */
  stub: () => LedgerStub;
  callId: string;
  owner: string;
  leaseMs: number;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Renews a claimed call's lease and listens for cancel requests (from any request, any isolate)
 * until stopped, turning one into an abort of `controller`; starts after `delayMs`, or at once on
 * now(). Each round is one long-poll of the call's shard, woken by a cancel or the call's end.
 */
export function watchCall(
  { stub, callId, owner, leaseMs }: WatchTarget,
  controller: AbortController,
  delayMs: number,
): Watching {
  let stopped = false;
  let started = false;
  let cancelSeen = false;
  const loop = async () => {
    while (!stopped) {
      const outcome = await callDurable(stub, (ledger) => ledger.watch(callId, owner, leaseMs, cancelSeen)).catch(
        () => undefined,
      );
      if (stopped || outcome?.done) return;
      if (!outcome)
        await pause(1_000); // the shard is unreachable: keep trying, gently
      else if (outcome.cancel && !cancelSeen) {
        cancelSeen = true;
        controller.abort(toolError("cancelled", `The call ${callId} was cancelled by a request to cancel it.`));
      }
      // Still renewing after a cancel: a tool that ignores its signal is still running.
    }
  };
  const start = () => {
    if (started || stopped) return;
    started = true;
    clearTimeout(timer);
    // A watch whose request was torn down (its client gone) just ends: the lease reclaims the row.
    loop().catch(() => undefined);
  };
  const timer = setTimeout(start, delayMs);
  return {
    now: start,
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}

/**
 * Just before a call that waited at a gate starts: was a cancel accepted meanwhile? One
 * check-and-renew on its shard, which serves requests one at a time, so an accepted cancel is seen.
 */
export async function mayStart({ stub, callId, owner, leaseMs }: WatchTarget): Promise<boolean> {
  const outcome = await callDurable(stub, (ledger) => ledger.confirmStart(callId, owner, leaseMs));
  return !outcome.cancel;
}
